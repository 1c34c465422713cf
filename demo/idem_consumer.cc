#include "demo/idem_consumer.h"

namespace idem::demo {

Result<std::unique_ptr<IdemConsumer>> IdemConsumer::Create(std::unique_ptr<Broker> queue, std::unique_ptr<Store> store,
                                                           Env* env, size_t index, FaultInjector* faults,
                                                           DeliveryLog* log, PipelineOptions options,
                                                           const payments::ServiceOptions& service) {
  std::unique_ptr<IdemConsumer> c(
      new IdemConsumer(std::move(queue), std::move(store), env, index, faults, log, std::move(options)));
  IDEM_RETURN_IF_ERROR(payments::RegisterPaymentHandlers(c->pipeline_, service));
  return c;
}

Status IdemConsumer::UseFastFilter(std::unique_ptr<FastFilter> filter) {
  IDEM_RETURN_IF_ERROR(pipeline_.SetFastFilter(filter.get(), FastFilterOptions{}));
  filter_ = std::move(filter);
  return Status::OK();
}

Result<size_t> IdemConsumer::Step() {
  BatchReport r = pipeline_.RunOnce();
  // The pipeline already released what it could not decide; in a demo run any
  // such failure is a defect to report, not a condition to ride out.
  if (!r.status.ok()) return r.status;
  return r.polled;
}

}  // namespace idem::demo
