// Workload: the business the simulator runs — its schema, its real handlers, the
// events to publish — and the checkers that read the database afterwards.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "idem/handler.h"
#include "idem/store.h"
#include "sim/sim_broker.h"
#include "sim/sim_env.h"

namespace idem::sim {

// One business event as published. `legit` events must be applied exactly once;
// poison events must be parked with a reason; a conflicting event reuses the key
// of `conflicts_with` (an earlier event's index) with a different payload.
struct Event {
  Message msg;
  bool legit = true;
  int conflicts_with = -1;
};

// Violations per checker. Every checker a workload runs is listed, even when clean,
// so a report shows what was checked.
struct CheckReport {
  std::map<std::string, std::vector<std::string>> violations;
  void Ran(const std::string& checker) { violations[checker]; }
  void Fail(const std::string& checker, std::string what) { violations[checker].push_back(std::move(what)); }
  size_t Total() const {
    size_t n = 0;
    for (const auto& [k, v] : violations) n += v.size();
    return n;
  }
};

// A second consumer group behind idem, fed by the outbox: the rows the first
// group's handlers emitted (HandlerContext::Emit) are published by the real
// relay into a broker of their own and consumed by these handlers.
struct DownstreamStage {
  std::vector<HandlerSpec> handlers;
  // The knobs below break the chain on purpose, so tests prove the checkers see it.
  bool guard = true;                            // false: the downstream guard is off
  bool relay_marks_before_publishing = false;   // a crashing relay then loses its batch
};

class Workload {
 public:
  virtual ~Workload() = default;
  // `protection` false: the run has the guard off; a workload may also drop the
  // database constraints that back it, as the incident's tables had none.
  virtual Status Setup(Store& store, bool protection) = 0;
  // `env` is the run's clock, for handlers that model outside services.
  virtual std::vector<HandlerSpec> Handlers(SimEnv& env) = 0;
  // `count` business events; poison and conflicting ones are mixed in with the
  // dice. Called once, before Setup.
  virtual std::vector<Event> Events(FaultDice& dice, int count) = 0;
  // After the run drained: read the database and the broker's terminal queue.
  virtual void Check(Store& store, const SimBroker& broker, const std::vector<Event>& events,
                     CheckReport& report) = 0;

  // Workloads whose handlers emit: the downstream group. Called once, after Setup.
  virtual std::optional<DownstreamStage> Downstream() { return std::nullopt; }
  // After Check, with the broker the relay published into.
  virtual void CheckDownstream(Store&, const SimBroker& /*downstream*/, CheckReport&) {}
};

}  // namespace idem::sim
