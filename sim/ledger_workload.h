// LedgerWorkload: the smallest business that exposes every guard failure — a
// charge writes a flow row (no unique constraint of its own, so only the guard
// prevents a second one), deducts the balance conditionally, and calls an
// external bank with the idempotency key. The payments service's
// workload checks more; this one keeps the simulator's own tests small.
#pragma once

#include <map>

#include "sim/workload.h"

namespace idem::sim {

// The simulated bank: deduplicates by Idempotency-Key, as a real PSP does.
struct SimBank {
  std::map<std::string, int64_t> charges;  // idempotency key → amount
  int64_t calls = 0;
};

class LedgerWorkload final : public Workload {
 public:
  Status Setup(Store& store, bool protection) override;
  std::vector<HandlerSpec> Handlers(SimEnv& env) override;
  std::vector<Event> Events(FaultDice& dice, int count) override;
  void Check(Store& store, const SimBroker& broker, const std::vector<Event>& events, CheckReport& report) override;

 private:
  struct Expected {
    std::string id;  // the payment id's exact text; empty for poison
    int64_t amount = 0;
  };
  SimBank bank_;
  std::vector<Expected> expected_;  // per event
};

// Shared by workloads: which events ended in the terminal queue, and why.
// Copies of one event carry the header x-sim-event with the event's index.
std::multimap<int, std::string> ParkedReasons(const SimBroker& broker);
inline constexpr const char* kEventHeader = "x-sim-event";

}  // namespace idem::sim
