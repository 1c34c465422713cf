// Faults that make a broker deliver a message again, injected
// deterministically into the consumers of a run. Each fault names the message
// it strikes and fires once, on that message's first delivery to a consumer
// that can suffer it; copies delivered later are left alone, so a run ends.
//
//   crash_after_commit     the consumer dies after its business commit, before the ack
//   stall_past_visibility  the consumer stalls with it past the visibility timeout while another
//                          consumer takes it over; then it carries on with its stale copy
//   revoke_after           the consumer loses its assignment right after processing it: its acks
//                          are lost and another consumer receives what it held
//   downstream             a slow bank call (the incident's 11 s) and notices that throw once
#pragma once

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "idem/message.h"
#include "idem/status.h"
#include "demo/simulated_downstream.h"

namespace idem::demo {

struct FaultPlan {
  std::set<std::string> crash_after_commit;     // message ids
  std::set<std::string> stall_past_visibility;  // message ids; needs a second consumer
  std::set<std::string> revoke_after;           // message ids; needs a second consumer
  SimulatedDownstream::Faults downstream;
};

// The run-time side of a FaultPlan, shared by the consumers and the driver.
class FaultInjector {
 public:
  explicit FaultInjector(const FaultPlan* plan) : plan_(plan) {}

  bool CrashAfterCommit(const Message& m) { return FireOnce(plan_->crash_after_commit, crashed_, m.id); }
  // Stalls and revocations need another consumer to take over, so they never
  // strike while a hand-over is already running: that keeps one consumer from
  // being re-entered in the middle of its own step.
  bool StallPastVisibility(const Message& m) {
    return !handing_over_ && FireOnce(plan_->stall_past_visibility, stalled_, m.id);
  }
  bool RevokeAfter(const Message& m) { return !handing_over_ && FireOnce(plan_->revoke_after, revoked_, m.id); }
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
