#include "core/batch_item.h"

#include <algorithm>

#include "core/bounded_text.h"

namespace idem {

void BatchItem::Decide(Outcome o) {
  // A second outcome would mean two phases disagree about one message; the
  // first one stands (it is what the earlier phase acted on).
  if (!outcome) outcome = std::move(o);
}

bool BatchItem::Runnable() const {
  const bool filter_settled = filter == FilterVerdict::kDone || filter == FilterVerdict::kInFlight;
  return spec && !copy_of && !variant_of && !outcome && !filter_settled;
}

// Never called on an undecided item; if it were, it would be given back, the
// one settlement that can never lose or double anything.
static const Outcome& OutcomeOrRelease(const std::optional<Outcome>& o) {
  static const Outcome kUndecided = Outcome::Release(Outcome::By::kStore, "undecided", 0);
  return o ? *o : kUndecided;
}

Decision BatchItem::ToDecision(const std::string& group) const {
  const Outcome& o = OutcomeOrRelease(outcome);
  Decision d;
  d.kind = o.kind;
  d.consumer_group = group;
  d.topic = msg->topic;
  d.key = key;
  d.message_id = msg->id;
  d.attempt = attempt;
  d.delivery_count = msg->delivery_count;
  d.reason = o.kind == DecisionKind::kFirst && o.reason.empty() ? note : o.reason;
  d.delay_ms = o.delay_ms;
  if (o.kind == DecisionKind::kRetry) d.rung = attempt;
  return d;
}

Settlement BatchItem::ToSettlement() const {
  const Outcome& o = OutcomeOrRelease(outcome);
  Settlement s;
  s.message = msg;
  // Bounded here, whatever built it: the reason travels with the copy a broker must take.
  s.reason = BoundedReason(o.kind == DecisionKind::kFirst && o.reason.empty() ? note : o.reason);
  s.delay_ms = o.delay_ms;
  // The record's count: this run if the handler ran, else the runs before it.
  s.attempts = ran ? attempt : std::max(attempt - 1, 0);
  switch (o.kind) {
    case DecisionKind::kFirst:
    case DecisionKind::kDuplicate: s.kind = Settlement::Kind::kAck; break;
    case DecisionKind::kRetry: s.kind = Settlement::Kind::kRetry; break;
    case DecisionKind::kParked:
    case DecisionKind::kConflict: s.kind = Settlement::Kind::kPark; break;
    case DecisionKind::kReleased:
    case DecisionKind::kInFlight: s.kind = Settlement::Kind::kRelease; break;
  }
  return s;
}

Outcome ClaimVerdict::ToOutcome() const {
  using B = Outcome::By;
  switch (kind) {
    case Kind::kDuplicate: return Outcome::Duplicate(B::kStore, reason);
    case Kind::kParkAgain: return Outcome::Park(B::kStore, reason);
    case Kind::kConflict: return Outcome::Conflict(B::kStore, reason);
    case Kind::kHold: return Outcome::Release(B::kStore, reason, delay_ms);
    case Kind::kInFlight: return Outcome::InFlight(B::kStore, reason, delay_ms);
    case Kind::kRun:
    case Kind::kTakeOver: break;
  }
  return Outcome::Applied(B::kStore);  // not reached: a verdict that runs has no outcome before the run
}

ClaimVerdict ClassifyClaim(const ClaimResult& claim, std::string_view fingerprint, bool replayed, int64_t now_ms,
                           const RetryPolicy& retry) {
  using K = ClaimVerdict::Kind;
  if (claim.inserted) return {K::kRun, 1, {}, 0};
  const Record& r = claim.existing;
  const int attempt = r.attempts + 1;
  if (r.fingerprint != fingerprint)
    return {K::kConflict, attempt,
            "key already recorded by message " + r.message_id + " with a different payload (fingerprint " +
                r.fingerprint.substr(0, 12) + " vs " + std::string(fingerprint.substr(0, 12)) + ")",
            0};
  switch (r.status) {
    case RecordStatus::kSucceeded:
      return {K::kDuplicate, attempt, "already applied", 0};
    case RecordStatus::kFailed:
      if (replayed) return {K::kTakeOver, attempt, {}, 0};
      // Parked again, not acked as a duplicate: the consumer may have died
      // between the commit that recorded the failure and the move to the
      // terminal queue, and then this copy is the only one left. At worst
      // the terminal queue holds two copies; replay runs the guard again.
      return {K::kParkAgain, attempt, "already parked after a permanent failure: " + r.last_error, 0};
    case RecordStatus::kReleased: {
      // A copy back before its retry is due — its consumer died before the
      // move to the delay tier reached the broker, which then redelivered at
      // once, or a producer resent it — would spend an attempt without the
      // ladder's wait, and a crash loop would park messages that only needed
      // time. Give it back until then (at most one rung: a clock that jumped
      // back must not hold it longer).
      const int64_t rung = retry.DelayAfter(r.attempts);
      const int64_t wait = std::min(r.last_seen_ms + rung - now_ms, rung);
      if (r.attempts > 0 && wait > 0)
        return {K::kHold, attempt,
                "retry " + std::to_string(r.attempts + 1) + " is not due for " + std::to_string(wait) + " ms", wait};
      return {K::kTakeOver, attempt, {}, 0};
    }
    case RecordStatus::kProcessing:
      if (r.lease_until_ms > now_ms)
        return {K::kInFlight, attempt, "claimed by message " + r.message_id + " until its lease ends",
                r.lease_until_ms - now_ms};
      return {K::kTakeOver, attempt, {}, 0};  // the claimant crashed; its lease is over
  }
  return {K::kTakeOver, attempt, {}, 0};
}

RunVerdict ClassifyRun(const HandlerResult& result, int attempt, const RetryPolicy& retry) {
  using B = Outcome::By;
  switch (result.outcome) {
    case HandlerResult::Outcome::kOk: return {Outcome::Applied(B::kStore), RecordStatus::kSucceeded};
    case HandlerResult::Outcome::kPermanent: return {Outcome::Park(B::kStore, result.reason), RecordStatus::kFailed};
    case HandlerResult::Outcome::kRetryable: break;
  }
  if (attempt >= retry.max_attempts)
    return {Outcome::Park(B::kStore, "gave up after " + std::to_string(attempt) + " attempts: " + result.reason),
            RecordStatus::kFailed};
  return {Outcome::Retry(result.reason, retry.DelayAfter(attempt)), RecordStatus::kReleased};
}

}  // namespace idem
