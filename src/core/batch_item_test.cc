// The pure classifications behind a message's outcome: what a claimed record
// means for it, and what a handler run means once its attempt is known.
#include "core/batch_item.h"

#include <gtest/gtest.h>

namespace idem {
namespace {

using K = ClaimVerdict::Kind;
constexpr int64_t kNow = 1'700'000'000'000;

ClaimResult Existing(RecordStatus status, int attempts = 1, int64_t last_seen_ms = kNow, int64_t lease_until_ms = 0) {
  ClaimResult c;
  c.existing.status = status;
  c.existing.fingerprint = "fp";
  c.existing.message_id = "m0";
  c.existing.attempts = attempts;
  c.existing.last_seen_ms = last_seen_ms;
  c.existing.lease_until_ms = lease_until_ms;
  c.existing.last_error = "bad payment";
  return c;
}

TEST(ClassifyClaim, EachRecordStateGivesItsVerdict) {
  const RetryPolicy retry;  // 30 s first rung
  ClaimResult fresh;
  fresh.inserted = true;
  EXPECT_EQ(ClassifyClaim(fresh, "fp", false, kNow, retry).kind, K::kRun);
  EXPECT_EQ(ClassifyClaim(Existing(RecordStatus::kSucceeded), "fp", false, kNow, retry).kind, K::kDuplicate);
  EXPECT_EQ(ClassifyClaim(Existing(RecordStatus::kSucceeded), "other", false, kNow, retry).kind, K::kConflict);
  ClaimVerdict parked = ClassifyClaim(Existing(RecordStatus::kFailed), "fp", false, kNow, retry);
  EXPECT_EQ(parked.kind, K::kParkAgain);
  EXPECT_EQ(parked.reason, "already parked after a permanent failure: bad payment");
  EXPECT_EQ(ClassifyClaim(Existing(RecordStatus::kFailed), "fp", true, kNow, retry).kind, K::kTakeOver);
  ClaimVerdict early = ClassifyClaim(Existing(RecordStatus::kReleased, 1, kNow - 1'000), "fp", false, kNow, retry);
  EXPECT_EQ(early.kind, K::kHold);
  EXPECT_EQ(early.delay_ms, 29'000);
  ClaimVerdict due = ClassifyClaim(Existing(RecordStatus::kReleased, 1, kNow - 30'000), "fp", false, kNow, retry);
  EXPECT_EQ(due.kind, K::kTakeOver);
  EXPECT_EQ(due.attempt, 2);
  ClaimVerdict live = ClassifyClaim(Existing(RecordStatus::kProcessing, 0, kNow, kNow + 5), "fp", false, kNow, retry);
  EXPECT_EQ(live.kind, K::kInFlight);
  EXPECT_EQ(live.delay_ms, 5);
  EXPECT_EQ(ClassifyClaim(Existing(RecordStatus::kProcessing, 0, kNow, kNow), "fp", false, kNow, retry).kind,
            K::kTakeOver);
}

TEST(ClassifyRun, ARetryableFailureAtTheLastAttemptIsParked) {
  const RetryPolicy retry;  // 5 attempts
  RunVerdict ok = ClassifyRun(HandlerResult::Ok(), 1, retry);
  EXPECT_EQ(ok.record, RecordStatus::kSucceeded);
  RunVerdict again = ClassifyRun(HandlerResult::Retryable("bank timeout"), 2, retry);
  EXPECT_EQ(again.plan, BatchItem::Plan::kRetry);
  EXPECT_EQ(again.record, RecordStatus::kReleased);
  EXPECT_EQ(again.delay_ms, 60'000);
  RunVerdict last = ClassifyRun(HandlerResult::Retryable("bank timeout"), 5, retry);
  EXPECT_EQ(last.plan, BatchItem::Plan::kPark);
  EXPECT_EQ(last.record, RecordStatus::kFailed);
  EXPECT_EQ(last.reason, "gave up after 5 attempts: bank timeout");
  RunVerdict bad = ClassifyRun(HandlerResult::Permanent("bad payment"), 1, retry);
  EXPECT_EQ(bad.plan, BatchItem::Plan::kPark);
  EXPECT_EQ(bad.record, RecordStatus::kFailed);
}

}  // namespace
}  // namespace idem
