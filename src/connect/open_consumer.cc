#include "idem/consumer.h"

namespace idem {

Consumer::~Consumer() = default;

Result<std::unique_ptr<Consumer>> Consumer::Open(const ConsumerUrls& urls, const ConsumerOptions& options,
                                                 Env* env) {
  std::unique_ptr<Consumer> c(new Consumer());
  auto broker = OpenBroker(urls.source, options.source, env);
  if (!broker.ok()) return broker.status();
  c->broker_ = std::move(*broker);
  auto store = OpenStore(urls.store, env);
  if (!store.ok()) return store.status();
  c->store_ = std::move(*store);
  c->pipeline_ = std::make_unique<Pipeline>(&c->broker_->source(), c->store_.get(), env, options.pipeline);
  if (!urls.fast_filter.empty()) {
    auto filter = OpenFastFilter(urls.fast_filter, options.fast_filter_url, env);
    if (!filter.ok()) return filter.status();
    c->fast_filter_ = std::move(*filter);
    // Checked here rather than at first use: a TTL shorter than the retry window is a configuration error.
    IDEM_RETURN_IF_ERROR(c->pipeline_->SetFastFilter(c->fast_filter_.get(), options.fast_filter));
  }
  return c;
}

}  // namespace idem
