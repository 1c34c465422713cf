// One message's journey through a batch: what the phases learn about it, and
// the one outcome it ends with.
//
// Each phase adds facts (planning: handler, key, fingerprint, in-batch copy;
// the fast filter: its verdict; the transaction: attempt, whether the handler
// ran, what the record was completed with). The outcome is set once, by the
// phase that decides it (Decide); settling and reporting only map it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "idem/decision.h"
#include "idem/fast_filter.h"
#include "idem/handler.h"
#include "idem/record.h"
#include "idem/retry.h"
#include "idem/source.h"
#include "idem/store.h"

namespace idem {

// How a message's batch ends for it. The kinds are the decisions idem reports.
struct Outcome {
  enum class By {
    kPlan,    // planning, without the database (bad input, no handler, an in-batch conflict)
    kFilter,  // the fast filter's verdict
    kStore,   // the records (claim, handler run, complete, commit) or the store's failure
    kCopy,    // an in-batch copy, following its primary
  };
  DecisionKind kind = DecisionKind::kFirst;
  By by = By::kStore;
  std::string reason;
  int64_t delay_ms = 0;  // kRetry: the retry delay; kReleased / kInFlight: how long to hold it back

  static Outcome Applied(By by) { return {DecisionKind::kFirst, by, {}, 0}; }
  static Outcome Duplicate(By by, std::string why) { return {DecisionKind::kDuplicate, by, std::move(why), 0}; }
  static Outcome Conflict(By by, std::string why) { return {DecisionKind::kConflict, by, std::move(why), 0}; }
  static Outcome Retry(std::string why, int64_t delay) {
    return {DecisionKind::kRetry, By::kStore, std::move(why), delay};
  }
  static Outcome Park(By by, std::string why) { return {DecisionKind::kParked, by, std::move(why), 0}; }
  static Outcome Release(By by, std::string why, int64_t delay) {
    return {DecisionKind::kReleased, by, std::move(why), delay};
  }
  static Outcome InFlight(By by, std::string why, int64_t delay) {
    return {DecisionKind::kInFlight, by, std::move(why), delay};
  }
};

struct BatchItem {
  const Message* msg = nullptr;
  int64_t polled_at_us = 0;

  // Planning.
  const HandlerSpec* spec = nullptr;
  std::string key;
  std::string fingerprint;
  Payload payload;                // parsed in planning, handed to the handler
  std::optional<size_t> copy_of;  // same key and payload as this earlier item: follows its outcome
  // Same key as this earlier item but another payload: judged, once the batch is
  // decided, against the record the earlier item's claim found (JudgeVariants),
  // or as a conflict with that item when the key had no record before.
  std::optional<size_t> variant_of;
  bool has_variants = false;  // some later item is a variant of this one: keep the record its claim finds

  // The fast filter.
  std::optional<FilterVerdict> filter;  // what it said (unset: not asked)
  bool filter_marked = false;           // we set its marker; Finish must settle it
  std::string note;                     // said with an applied outcome (a degraded filter)

  // The batch transaction (its last run).
  int attempt = 0;   // handler attempt number for this key (1-based); 0 before any claim
  std::optional<Record> found;  // has_variants: the record its claim found (unset: it inserted one, or none ran)
  bool ran = false;  // the handler ran in it
  RecordStatus written = RecordStatus::kSucceeded;  // what Complete wrote
  std::string summary;

  std::optional<Outcome> outcome;

  // Sets the outcome. REQUIRES: none set yet (each message gets exactly one).
  void Decide(Outcome o);
  bool decided() const { return outcome.has_value(); }
  // Goes to the transaction: planned to run, not a copy, not decided yet, and not
  // settled by the fast filter (DONE or in flight).
  bool Runnable() const;

  Decision ToDecision(const std::string& group) const;
  // What the source is told: only a mapping of the outcome.
  Settlement ToSettlement() const;
};

// What the record that Claim found says about one message. Pure: the pipeline
// applies it (and writes the take-over or the touch of a copy, with the batch's
// record writes, where it says so).
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
  // The outcome of a verdict that does not run the handler. REQUIRES: !Runs().
  Outcome ToOutcome() const;
};
ClaimVerdict ClassifyClaim(const ClaimResult& claim, std::string_view fingerprint, bool replayed, int64_t now_ms,
                           const RetryPolicy& retry);

// How a handler run ends for its message once its attempt number is known: a
// retryable failure at the last attempt is parked. Pure.
struct RunVerdict {
  Outcome outcome;  // kFirst (applied), kRetry or kParked
  RecordStatus record = RecordStatus::kSucceeded;
};
RunVerdict ClassifyRun(const HandlerResult& result, int attempt, const RetryPolicy& retry);

}  // namespace idem
