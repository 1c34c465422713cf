#include "demo/idem_consumer.h"

namespace idem::demo {

Result<std::unique_ptr<IdemConsumer>> IdemConsumer::Create(std::unique_ptr<Broker> queue, std::unique_ptr<Store> store,
                                                           std::unique_ptr<FastFilter> filter, Env* env, size_t index,
                                                           FaultInjector* faults, DeliveryLog* log,
                                                           PipelineOptions options,
                                                           const payments::ServiceOptions& service) {
  idem::ConsumerParts parts;
  parts.broker = std::move(queue);
  parts.store = std::move(store);
  parts.fast_filter = std::move(filter);
  parts.decorators.push_back([=](Source* below) -> std::unique_ptr<Source> {
    return std::make_unique<DrivenSource>(below, index, faults, log);
  });
  idem::ConsumerOptions co;
  co.pipeline = std::move(options);
  auto consumer = idem::Consumer::Assemble(std::move(parts), co, env);
  if (!consumer.ok()) return consumer.status();
  std::unique_ptr<IdemConsumer> c(new IdemConsumer());
  c->consumer_ = std::move(*consumer);
  IDEM_RETURN_IF_ERROR(payments::RegisterPaymentHandlers(c->consumer_->pipeline(), service));
  return c;
}

Result<size_t> IdemConsumer::Step() {
  BatchReport r = consumer_->pipeline().RunOnce();
  // The pipeline already released what it could not decide; in a demo run any
  // such failure is a defect to report, not a condition to ride out.
  if (!r.status.ok()) return r.status;
  return r.polled;
}

}  // namespace idem::demo
