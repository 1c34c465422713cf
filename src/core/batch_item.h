// One message's journey through a batch: what the pipeline plans for it and why.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "idem/decision.h"
#include "idem/handler.h"
#include "idem/record.h"
#include "idem/retry.h"
#include "idem/source.h"
#include "idem/store.h"

namespace idem {

struct ClaimVerdict;
struct RunVerdict;

struct BatchItem {
  enum class Plan {
    kRun,        // run the handler (after it ran OK: acknowledge as FIRST)
    kDuplicate,  // already applied: acknowledge
    kCopyOf,     // same key and payload as `primary` earlier in this batch: follows it
    kConflict,   // same key, different payload: park
    kRetry,      // retryable failure: delay tier
    kPark,       // permanent: terminal queue
    kRelease,    // undecided: give back to the broker
    kInFlight,   // another worker holds a live claim: give back until its lease ends
  };

  const Message* msg = nullptr;
  const HandlerSpec* spec = nullptr;
  std::string key;
  std::string fingerprint;
  Payload payload;  // parsed in planning, handed to the handler
  Plan plan = Plan::kPark;
  size_t primary = 0;  // kCopyOf: index of the first copy
  int attempt = 0;     // handler attempt number for this key (1-based)
  bool ran = false;    // the handler ran in this batch's transaction
  bool decided_without_db = false;  // parked in planning; stands even if the transaction fails
  bool filter_marked = false;   // we set its fast-filter marker; Finish must settle it
  bool filtered = false;        // the fast filter said DONE: acknowledged without the database
  bool applied_before = false;  // the record said SUCCEEDED
  RecordStatus expected_status = RecordStatus::kSucceeded;  // what Complete wrote
  std::string reason;
  std::string summary;
  int64_t delay_ms = 0;
  int64_t polled_at_us = 0;

  void Park(std::string why) { plan = Plan::kPark; reason = std::move(why); }
  void Conflict(std::string why) { plan = Plan::kConflict; reason = std::move(why); }
  void Duplicate(std::string why) { plan = Plan::kDuplicate; reason = std::move(why); }
  void Release(std::string why, int64_t delay) {
    plan = Plan::kRelease;
    reason = std::move(why);
    delay_ms = delay;
  }
  void InFlight(std::string why, int64_t delay) {
    plan = Plan::kInFlight;
    reason = std::move(why);
    delay_ms = delay;
  }

  // The plan a claim verdict or a handler run's verdict gives this message.
  void Apply(const ClaimVerdict& v);
  void Apply(const RunVerdict& v);

  Decision ToDecision(const std::string& group) const;
  // What the source is told: only a mapping of the plan.
  Settlement ToSettlement() const;
};

// What the record that Claim found says about one message. Pure: the pipeline
// applies it (and writes TakeOver / NoteDuplicate where it says so).
struct ClaimVerdict {
  enum class Kind {
    kRun,        // no record before: run the handler
    kTakeOver,   // released, replayed after a park, or a dead claimant's: take the record over and run
    kDuplicate,  // applied before: acknowledge
    kParkAgain,  // parked before: park this copy too
    kConflict,   // same key, another payload: park as a conflict
    kHold,       // a retry that is not due yet: give back until it is
    kInFlight,   // another worker's live claim: give back until its lease ends
  };
  Kind kind = Kind::kRun;
  int attempt = 1;  // the attempt this delivery would be
  std::string reason;
  int64_t delay_ms = 0;

  bool Runs() const { return kind == Kind::kRun || kind == Kind::kTakeOver; }
  bool NotesDuplicate() const { return kind == Kind::kDuplicate || kind == Kind::kParkAgain; }
};
ClaimVerdict ClassifyClaim(const ClaimResult& claim, std::string_view fingerprint, bool replayed, int64_t now_ms,
                           const RetryPolicy& retry);

// How a handler run ends for its message once its attempt number is known: a
// retryable failure at the last attempt is parked. Pure.
struct RunVerdict {
  BatchItem::Plan plan = BatchItem::Plan::kRun;  // kRun (applied), kRetry or kPark
  RecordStatus record = RecordStatus::kSucceeded;
  std::string reason;  // empty when applied: the item keeps the note it has (a degraded filter)
  int64_t delay_ms = 0;
};
RunVerdict ClassifyRun(const HandlerResult& result, int attempt, const RetryPolicy& retry);

}  // namespace idem
