// The pure classifications behind a message's outcome (what a claimed record
// means for it, what a handler run means once its attempt is known) and the
// outcome itself: set once, then only mapped to a settlement and a decision.
#include "core/batch_item.h"

#include <gtest/gtest.h>

#include "core/batch_dedup.h"
#include "core/bounded_text.h"

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
  EXPECT_EQ(again.outcome.kind, DecisionKind::kRetry);
  EXPECT_EQ(again.record, RecordStatus::kReleased);
  EXPECT_EQ(again.outcome.delay_ms, 60'000);
  RunVerdict last = ClassifyRun(HandlerResult::Retryable("bank timeout"), 5, retry);
  EXPECT_EQ(last.outcome.kind, DecisionKind::kParked);
  EXPECT_EQ(last.record, RecordStatus::kFailed);
  EXPECT_EQ(last.outcome.reason, "gave up after 5 attempts: bank timeout");
  RunVerdict bad = ClassifyRun(HandlerResult::Permanent("bad payment"), 1, retry);
  EXPECT_EQ(bad.outcome.kind, DecisionKind::kParked);
  EXPECT_EQ(bad.record, RecordStatus::kFailed);
}

}  // namespace
}  // namespace idem

namespace idem {
namespace {

TEST(BatchItemOutcome, IsSetOnceAndTheFirstStands) {
  Message m;
  BatchItem it;
  it.msg = &m;
  EXPECT_FALSE(it.decided());
  it.Decide(Outcome::Park(Outcome::By::kPlan, "payload is not JSON"));
  it.Decide(Outcome::Applied(Outcome::By::kStore));  // a later phase cannot overturn it
  ASSERT_TRUE(it.decided());
  EXPECT_EQ(it.outcome->kind, DecisionKind::kParked);
  EXPECT_EQ(it.ToSettlement().kind, Settlement::Kind::kPark);
  EXPECT_EQ(it.ToDecision("g").reason, "payload is not JSON");
}

TEST(BatchItemOutcome, TheSettlementsReasonIsBoundedWhateverBuiltIt) {
  Message m;
  BatchItem it;
  it.msg = &m;
  it.Decide(Outcome::Park(Outcome::By::kStore, "handler threw: " + std::string(500'000, 'x')));
  const Settlement s = it.ToSettlement();
  EXPECT_LE(s.reason.size(), kMaxReasonBytes);
  EXPECT_EQ(s.reason.rfind("handler threw: xxx", 0), 0u);
  EXPECT_NE(s.reason.find("(500,015 bytes in all)"), std::string::npos);
}

TEST(BatchItemOutcome, SettlementAndDecisionOnlyMapIt) {
  Message m;
  BatchItem it;
  it.msg = &m;
  it.attempt = 3;
  it.ran = true;
  it.Decide(Outcome::Retry("bank timeout", 300'000));
  const Settlement s = it.ToSettlement();
  EXPECT_EQ(s.kind, Settlement::Kind::kRetry);
  EXPECT_EQ(s.delay_ms, 300'000);
  EXPECT_EQ(s.reason, "bank timeout");
  EXPECT_EQ(s.attempts, 3) << "the record's count: this run";
  const Decision d = it.ToDecision("g");
  EXPECT_EQ(d.kind, DecisionKind::kRetry);
  EXPECT_EQ(d.rung, 3);

  BatchItem held;
  held.msg = &m;
  held.attempt = 2;  // claimed, not run: the record counts one run before
  held.Decide(Outcome::InFlight(Outcome::By::kStore, "claimed elsewhere", 5));
  EXPECT_EQ(held.ToSettlement().kind, Settlement::Kind::kRelease);
  EXPECT_EQ(held.ToSettlement().attempts, 1);
}

TEST(BatchItemOutcome, ACopyFollowsItsPrimaryOnlyOnceThePrimaryIsDecided) {
  Message a, b;
  a.id = "m-a";
  std::vector<BatchItem> items(2);
  items[0].msg = &a;
  items[1].msg = &b;
  items[1].copy_of = 0;
  items[0].Decide(Outcome::Release(Outcome::By::kStore, "store: down", 100));
  FollowPrimaries(items);
  EXPECT_EQ(items[1].outcome->kind, DecisionKind::kReleased);
  EXPECT_EQ(items[1].outcome->delay_ms, 100);

  std::vector<BatchItem> applied(2);
  applied[0].msg = &a;
  applied[1].msg = &b;
  applied[1].copy_of = 0;
  applied[0].Decide(Outcome::Applied(Outcome::By::kStore));
  FollowPrimaries(applied);
  EXPECT_EQ(applied[1].outcome->kind, DecisionKind::kDuplicate);
  EXPECT_EQ(applied[1].outcome->reason, "copy of message m-a in the same batch");
}

}  // namespace
}  // namespace idem
