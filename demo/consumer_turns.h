// ConsumerTurns: the consumers of one run, stepped in turn by one thread, and
// the hand-over of what one of them held to the others when a fault says so
// (a stall past the visibility timeout, a rebalance). Both scenario drivers
// build on it; each says how its broker learns that a consumer is gone and how
// the others then get its messages (HandOverUntil), and what follows a step.
#pragma once

#include <cstddef>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "demo/consumer.h"
#include "demo/faults.h"

namespace idem::demo::detail {

class ConsumerTurns {
 public:
  virtual ~ConsumerTurns() = default;

 protected:
  // The run's faults, with the hand-over installed as their on_stall. `plan` must outlive this.
  explicit ConsumerTurns(const FaultPlan* plan);

  // One step of every consumer but `skip`, in order; *progressed when any of
  // them received a message. A revocation posted during a step is handed over
  // right after it.
  Status StepAll(bool* progressed, size_t skip = SIZE_MAX);

  // Runs while a hand-over is on (no further stall or revocation strikes):
  // returns once every message in `ids` has reached a consumer other than `from`.
  virtual Status HandOverUntil(const std::vector<std::string>& ids, size_t from) = 0;
  // After consumer `i`'s step (and any hand-over it caused).
  virtual Status AfterStep(size_t /*i*/) { return Status::OK(); }

  FaultInjector faults_;
  std::vector<std::unique_ptr<Consumer>> consumers_;

 private:
  void HandOver(const std::vector<std::string>& ids, size_t from);

  Status handover_status_;  // a hand-over runs inside a consumer's step; its failure surfaces after it
};

// The messages a hand-over still waits for.
class HandOverWait {
 public:
  HandOverWait(const std::vector<std::string>& ids, size_t from, const DeliveryLog& log)
      : waiting_(ids.begin(), ids.end()), from_(from), log_(log), seen_(log.deliveries().size()) {}
  // Reads the deliveries since the last call; true when every message has
  // reached a consumer other than `from`.
  bool Done() {
    for (; seen_ < log_.deliveries().size(); ++seen_)
      if (log_.deliveries()[seen_].consumer != from_) waiting_.erase(log_.deliveries()[seen_].message_id);
    return waiting_.empty();
  }
  size_t left() const { return waiting_.size(); }

 private:
  std::set<std::string> waiting_;
  size_t from_;
  const DeliveryLog& log_;
  size_t seen_;
};

}  // namespace idem::demo::detail
