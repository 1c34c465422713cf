// Consumer::Assemble: the one wiring of a consumer (include/idem/consumer.h).
// Consumer::Open, `idem run`'s workers, the simulator, the demo and the bench
// all come through here, so each sees the same pipeline over the same stack.
#include "idem/consumer.h"

namespace idem {

Consumer::~Consumer() {
  pipeline_.reset();
  while (!decorators_.empty()) decorators_.pop_back();  // top first: each may still hold the one below
}

Result<std::unique_ptr<Consumer>> Consumer::Assemble(ConsumerParts parts, const ConsumerOptions& options, Env* env) {
  if (!parts.store) return Status::InvalidArgument("a consumer needs a store");
  if (!parts.broker == !parts.source)
    return Status::InvalidArgument("a consumer takes its messages from a broker or from a source: give exactly one");
  std::unique_ptr<Consumer> c(new Consumer());
  c->broker_ = std::move(parts.broker);
  c->own_source_ = std::move(parts.source);
  c->store_ = std::move(parts.store);
  c->fast_filter_ = std::move(parts.fast_filter);
  c->top_ = c->broker_ ? &c->broker_->source() : c->own_source_.get();
  for (SourceDecorator& decorate : parts.decorators) {
    std::unique_ptr<Source> wrapped = decorate ? decorate(c->top_) : nullptr;
    if (!wrapped) return Status::InvalidArgument("a source decorator returned no source");
    c->top_ = wrapped.get();
    c->decorators_.push_back(std::move(wrapped));
  }
  c->pipeline_ = std::make_unique<Pipeline>(c->top_, c->store_.get(), env, options.pipeline);
  // Checked here rather than at first use: a TTL shorter than the retry window is a configuration error.
  if (c->fast_filter_) IDEM_RETURN_IF_ERROR(c->pipeline_->SetFastFilter(c->fast_filter_.get(), options.fast_filter));
  return c;
}

}  // namespace idem
