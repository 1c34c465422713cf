// DownstreamStage: the second half of the payments chain in an embedded demo
// run. pay.success emitted its points grants and notices into the outbox; this
// stage runs the outbox relay into a queue of its own and a consumer behind
// idem (group "downstream": points.grant and notice.send) on the run's clock,
// until the outbox and that queue are empty, so the run is measured with every
// points row and notice in place.
#pragma once

#include <memory>

#include "idem/consumer.h"
#include "idem/store.h"
#include "payments/handlers.h"
#include "sim/sim_env.h"

namespace idem::demo {

class DownstreamStage {
 public:
  // `queue_path`: the stage's own queue file; `store`: a connection of its own.
  static Result<std::unique_ptr<DownstreamStage>> Open(const std::string& queue_path, std::unique_ptr<Store> store,
                                                       sim::SimEnv* env, const payments::ServiceOptions& service,
                                                       int64_t visibility_timeout_ms, size_t batch_size);

  // Relays and consumes, moving the clock by `idle_step_ms` while only retry
  // delays are left, until nothing is pending; Permanent after `max_ms` simulated.
  Status Drain(int64_t idle_step_ms, int64_t max_ms);

 private:
  DownstreamStage() = default;
  sim::SimEnv* env_ = nullptr;
  std::unique_ptr<idem::Consumer> consumer_;  // the stage's queue, its store connection, the pipeline
};

}  // namespace idem::demo
