#include "idem/consumer.h"

namespace idem {

Result<std::unique_ptr<Consumer>> Consumer::Open(const ConsumerUrls& urls, const ConsumerOptions& options,
                                                 Env* env) {
  ConsumerParts parts;
  auto broker = OpenBroker(urls.source, options.source, env);
  if (!broker.ok()) return broker.status();
  parts.broker = std::move(*broker);
  auto store = OpenStore(urls.store, env);
  if (!store.ok()) return store.status();
  parts.store = std::move(*store);
  if (!urls.fast_filter.empty()) {
    auto filter = OpenFastFilter(urls.fast_filter, options.fast_filter_url, env);
    if (!filter.ok()) return filter.status();
    parts.fast_filter = std::move(*filter);
  }
  return Assemble(std::move(parts), options, env);
}

}  // namespace idem
