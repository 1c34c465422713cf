#include "core/batch_item.h"

#include <algorithm>

namespace idem {

Decision BatchItem::ToDecision(const std::string& group) const {
  Decision d;
  d.consumer_group = group;
  d.topic = msg->topic;
  d.key = key;
  d.message_id = msg->id;
  d.attempt = attempt;
  d.delivery_count = msg->delivery_count;
  d.reason = reason;
  d.delay_ms = delay_ms;
  switch (plan) {
    case Plan::kRun: d.kind = DecisionKind::kFirst; break;
    case Plan::kDuplicate:
    case Plan::kCopyOf: d.kind = DecisionKind::kDuplicate; break;
    case Plan::kConflict: d.kind = DecisionKind::kConflict; break;
    case Plan::kRetry:
      d.kind = DecisionKind::kRetry;
      d.rung = attempt;
      break;
    case Plan::kPark: d.kind = DecisionKind::kParked; break;
    case Plan::kRelease: d.kind = DecisionKind::kReleased; break;
    case Plan::kInFlight: d.kind = DecisionKind::kInFlight; break;
  }
  return d;
}

Settlement BatchItem::ToSettlement() const {
  Settlement s;
  s.message = msg;
  s.reason = reason;
  s.delay_ms = delay_ms;
  // The record's count: this run if the handler ran, else the runs before it.
  s.attempts = ran ? attempt : std::max(attempt - 1, 0);
  switch (plan) {
    case Plan::kRun:
    case Plan::kDuplicate: s.kind = Settlement::Kind::kAck; break;
    case Plan::kRetry: s.kind = Settlement::Kind::kRetry; break;
    case Plan::kPark:
    case Plan::kConflict: s.kind = Settlement::Kind::kPark; break;
    case Plan::kRelease:
    case Plan::kInFlight:
    case Plan::kCopyOf: s.kind = Settlement::Kind::kRelease; break;
  }
  return s;
}

void BatchItem::Apply(const ClaimVerdict& v) {
  using K = ClaimVerdict::Kind;
  attempt = v.attempt;
  switch (v.kind) {
    case K::kRun:
    case K::kTakeOver: break;  // stays kRun
    case K::kDuplicate:
      Duplicate(v.reason);
      applied_before = true;
      break;
    case K::kParkAgain: Park(v.reason); break;
    case K::kConflict: Conflict(v.reason); break;
    case K::kHold: Release(v.reason, v.delay_ms); break;
    case K::kInFlight: InFlight(v.reason, v.delay_ms); break;
  }
}

void BatchItem::Apply(const RunVerdict& v) {
  plan = v.plan;
  if (v.plan != Plan::kRun) reason = v.reason;
  delay_ms = v.delay_ms;
  expected_status = v.record;
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
  using P = BatchItem::Plan;
  switch (result.outcome) {
    case HandlerResult::Outcome::kOk: return {P::kRun, RecordStatus::kSucceeded, {}, 0};
    case HandlerResult::Outcome::kPermanent: return {P::kPark, RecordStatus::kFailed, result.reason, 0};
    case HandlerResult::Outcome::kRetryable: break;
  }
  if (attempt >= retry.max_attempts)
    return {P::kPark, RecordStatus::kFailed, "gave up after " + std::to_string(attempt) + " attempts: " + result.reason,
            0};
  return {P::kRetry, RecordStatus::kReleased, result.reason, retry.DelayAfter(attempt)};
}

}  // namespace idem
