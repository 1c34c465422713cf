// PaymentsWorkload: the reference payments service (examples/payments) under
// the simulator — its schema, its six real handlers, the seeded business events
// with their oracle, plus poison messages and same-key/different-payload copies.
// The checkers read the ledger, balances, order states, stock, points and
// notices from the database and the terminal queue from the broker.
#pragma once

#include <memory>

#include "demo/simulated_downstream.h"
#include "demo/workload.h"
#include "sim/workload.h"

namespace idem::sim {

class PaymentsWorkload final : public Workload {
 public:
  Status Setup(Store& store, bool protection) override;
  std::vector<HandlerSpec> Handlers(SimEnv& env) override;
  std::vector<Event> Events(FaultDice& dice, int count) override;
  void Check(Store& store, const SimBroker& broker, const std::vector<Event>& events, CheckReport& report) override;

 private:
  demo::Workload w_;
  std::vector<int> business_index_;  // sim event → index in w_.events (-1: poison or conflict copy)
  std::unique_ptr<demo::SimulatedDownstream> downstream_;
};

}  // namespace idem::sim
