// Faults that make a broker deliver a message again, injected
// deterministically into the consumers of a run. They are faults of the
// simulator's model (sim/faults.h), struck on named messages instead of drawn
// with a probability: each fires once, on that message's first delivery to a
// consumer that can suffer it; copies delivered later are left alone, so a run ends.
//
//   Fault::kCrashAfterCommit  the consumer dies after its business commit, before the ack
//   Fault::kSlowHandler       the consumer stalls with it past the visibility timeout while another
//                             consumer takes it over; then it carries on with its stale copy
//   Fault::kRebalance         the consumer loses its assignment right after processing it: its acks
//                             are lost and another consumer receives what it held
//   downstream                a slow bank call (the incident's 11 s) and notices that throw once
//                             (Fault::kThrowAfterEffect, struck by the notice service)
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "demo/simulated_downstream.h"
#include "idem/message.h"
#include "idem/status.h"
#include "sim/faults.h"

namespace idem::demo {

using sim::Fault;

struct FaultPlan {
  // The message ids each fault strikes: kCrashAfterCommit, and kSlowHandler and
  // kRebalance (which need a second consumer). Other faults are not struck here.
  std::map<Fault, std::set<std::string>> strikes;
  SimulatedDownstream::Faults downstream;

  const std::set<std::string>& Strikes(Fault f) const {
    static const std::set<std::string> kNone;
    auto it = strikes.find(f);
    return it == strikes.end() ? kNone : it->second;
  }
};

// The run-time side of a FaultPlan, shared by the consumers and the driver.
class FaultInjector {
 public:
  explicit FaultInjector(const FaultPlan* plan) : plan_(plan) {}

  bool CrashAfterCommit(const Message& m) {
    return FireOnce(plan_->Strikes(Fault::kCrashAfterCommit), crashed_, m.id);
  }
  // Stalls and revocations need another consumer to take over, so they never
  // strike while a hand-over is already running: that keeps one consumer from
  // being re-entered in the middle of its own step.
  bool StallPastVisibility(const Message& m) {
    return !handing_over_ && FireOnce(plan_->Strikes(Fault::kSlowHandler), stalled_, m.id);
  }
  bool RevokeAfter(const Message& m) {
    return !handing_over_ && FireOnce(plan_->Strikes(Fault::kRebalance), revoked_, m.id);
  }
  void SetHandingOver(bool on) { handing_over_ = on; }

  // Set by the driver. A stalled consumer calls it with its index and the ids
  // it holds; it returns once other consumers have received those messages.
  std::function<void(size_t consumer, const std::vector<std::string>& message_ids)> on_stall;

  // A revoked consumer posts the ids it held; the driver hands them over after its step.
  void PostHandOver(std::vector<std::string> ids) { handover_.insert(handover_.end(), ids.begin(), ids.end()); }
  std::vector<std::string> TakeHandOver() { return std::exchange(handover_, {}); }

 private:
  static bool FireOnce(const std::set<std::string>& plan, std::set<std::string>& fired, const std::string& id) {
    return plan.count(id) && fired.insert(id).second;
  }
  const FaultPlan* plan_;
  std::set<std::string> crashed_, stalled_, revoked_;
  std::vector<std::string> handover_;
  bool handing_over_ = false;
};

}  // namespace idem::demo
