// ChainWorkload: the transactional outbox end to end. An order handler behind
// idem records the order and emits one to three points grants through
// HandlerContext::Emit; the real relay publishes them into a second broker; a
// points consumer behind idem (its own consumer group) records each grant.
// Neither table has a unique key: the guards are the only defence, so a copy
// the relay publishes twice must be absorbed downstream.
// The checkers read the orders, the grants, a log of every outbox insert (kept
// by a trigger, so the relay's cleanup cannot hide a row) and the outbox itself.
#pragma once

#include <vector>

#include "sim/workload.h"

namespace idem::sim {

struct ChainOptions {
  // Break the chain on purpose (see DownstreamStage), to prove the checkers see it.
  bool downstream_guard = true;
  bool relay_marks_before_publishing = false;
};

class ChainWorkload final : public Workload {
 public:
  explicit ChainWorkload(ChainOptions options = {}) : options_(options) {}

  Status Setup(Store& store, bool protection) override;
  std::vector<HandlerSpec> Handlers(SimEnv& env) override;
  std::vector<Event> Events(FaultDice& dice, int count) override;
  void Check(Store& store, const SimBroker& broker, const std::vector<Event>& events, CheckReport& report) override;
  std::optional<DownstreamStage> Downstream() override;
  void CheckDownstream(Store& store, const SimBroker& downstream, CheckReport& report) override;

 private:
  struct Order {
    std::string id;  // empty for poison
    int64_t amount = 0;
    int emits = 0;
  };
  ChainOptions options_;
  std::vector<Order> orders_;  // per event
};

}  // namespace idem::sim
