// IdemConsumer: the payments service behind idem's pipeline — records in the
// same transaction as the effects, manual ack after the outcome is known, the
// retry ladder and the terminal queue.
#pragma once

#include <memory>

#include "idem/broker.h"
#include "idem/pipeline.h"
#include "idem/store.h"
#include "demo/driven_source.h"
#include "payments/handlers.h"

namespace idem::demo {

class IdemConsumer final : public Consumer {
 public:
  // Takes its own queue and store connections, as a separate process would.
  static Result<std::unique_ptr<IdemConsumer>> Create(std::unique_ptr<Broker> queue, std::unique_ptr<Store> store,
                                                      Env* env, size_t index, FaultInjector* faults, DeliveryLog* log,
                                                      PipelineOptions options, const payments::ServiceOptions& service);

  Result<size_t> Step() override;

  // Puts a fast filter (Redis) in front of the guard; the consumer keeps it.
  Status UseFastFilter(std::unique_ptr<FastFilter> filter);

 private:
  IdemConsumer(std::unique_ptr<Broker> queue, std::unique_ptr<Store> store, Env* env, size_t index,
               FaultInjector* faults, DeliveryLog* log, PipelineOptions options)
      : queue_(std::move(queue)),
        store_(std::move(store)),
        source_(queue_.get(), index, faults, log),
        pipeline_(&source_, store_.get(), env, std::move(options)) {}

  std::unique_ptr<Broker> queue_;
  std::unique_ptr<Store> store_;
  DrivenSource source_;
  Pipeline pipeline_;
  std::unique_ptr<FastFilter> filter_;
};

}  // namespace idem::demo
