// IdemConsumer: the payments service behind idem's pipeline — records in the
// same transaction as the effects, manual ack after the outcome is known, the
// retry ladder and the terminal queue.
#pragma once

#include <memory>

#include "idem/consumer.h"
#include "demo/driven_source.h"
#include "payments/handlers.h"

namespace idem::demo {

class IdemConsumer final : public Consumer {
 public:
  // Takes its own queue and store connections, as a separate process would,
  // and `filter` (may be null) to put in front of the guard.
  static Result<std::unique_ptr<IdemConsumer>> Create(std::unique_ptr<Broker> queue, std::unique_ptr<Store> store,
                                                      std::unique_ptr<FastFilter> filter, Env* env, size_t index,
                                                      FaultInjector* faults, DeliveryLog* log, PipelineOptions options,
                                                      const payments::ServiceOptions& service);

  Result<size_t> Step() override;

 private:
  IdemConsumer() = default;

  std::unique_ptr<idem::Consumer> consumer_;  // the queue under a DrivenSource, the store, the filter, the pipeline
};

}  // namespace idem::demo
