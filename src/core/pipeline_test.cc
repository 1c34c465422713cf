// The guard pipeline over the real SQLite store and embedded queue, with a
// manual clock. Every assertion reads outcomes a user cares about: effect rows,
// balances, records, and what is left in the queue.
#include "idem/pipeline.h"

#include <gtest/gtest.h>

#include "core/key.h"
#include "core/pipeline_test_fixture.h"
#include "store/replay_grants.h"
#include "idem/embedded_queue.h"
#include "testing/test_util.h"
#include "core/pipeline_test_hooks.h"

namespace idem {
namespace {

using testing::Balance;
using testing::CountEffects;
using testing::PayHandler;
using testing::QueryInt;
using testing::TempDir;

using PipelineTest = PipelineFixture;

TEST_F(PipelineTest, FirstDeliveryAppliesAndAcks) {
  Publish(R"({"payment_id":"P1","amount":199})");
  auto p = Make();
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 1);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 199);
  EXPECT_EQ(Stats().ready + Stats().in_flight + Stats().dead, 0);
  Record r = ReadRecord("pay:P1");
  EXPECT_EQ(r.status, RecordStatus::kSucceeded);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_EQ(r.result_summary, "charged 199");
  ASSERT_EQ(decisions_.size(), 1u);
  EXPECT_EQ(decisions_[0].kind, DecisionKind::kFirst);
  EXPECT_EQ(decisions_[0].key, "pay:P1");
}

TEST_F(PipelineTest, CopiesInOneBatchAndAcrossBatchesApplyOnce) {
  // Same copy twice in one batch, a producer resend under a new id, and a later copy.
  Publish(R"({"payment_id":"P1","amount":100})", "a");
  Publish(R"({"payment_id":"P1","amount":100})", "a");
  Publish(R"({"amount":100,"payment_id":"P1"})", "b");
  auto p = Make();
  Drain(*p);
  Publish(R"({"payment_id":"P1","amount":100})", "c");
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 1);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 100);
  EXPECT_EQ(Count(DecisionKind::kFirst), 1);
  EXPECT_EQ(Count(DecisionKind::kDuplicate), 3);
  // The cross-batch copy came at once: it wrote nothing (see DuplicateCopiesWriteTheRecordOnlyWhenItGrowsOld);
  // in-batch copies never reach the store.
  EXPECT_EQ(ReadRecord("pay:P1").duplicates, 0);
  EXPECT_EQ(Stats().ready + Stats().in_flight + Stats().dead, 0);
  EXPECT_EQ(p->counters().received, 4);
  EXPECT_DOUBLE_EQ(p->counters().DuplicateRatio(), 0.75);
}

TEST_F(PipelineTest, DuplicateCopiesWriteTheRecordOnlyWhenItGrowsOld) {
  PipelineOptions o;
  o.duplicate_refresh_after_ms = 60'000;
  auto p = Make(o);
  Publish(R"({"payment_id":"P1","amount":100})", "a");
  Drain(*p);
  const int64_t applied_at = ReadRecord("pay:P1").last_seen_ms;
  env_.Advance(59'999);  // a copy soon after: acknowledged, no write
  Publish(R"({"payment_id":"P1","amount":100})", "b");
  Drain(*p);
  EXPECT_EQ(ReadRecord("pay:P1").duplicates, 0);
  EXPECT_EQ(ReadRecord("pay:P1").last_seen_ms, applied_at);
  env_.Advance(1);  // a minute after the record was last seen: retention needs it refreshed
  Publish(R"({"payment_id":"P1","amount":100})", "c");
  Drain(*p);
  EXPECT_EQ(ReadRecord("pay:P1").duplicates, 1);
  EXPECT_EQ(ReadRecord("pay:P1").last_seen_ms, applied_at + 60'000);
  EXPECT_EQ(Count(DecisionKind::kDuplicate), 2);  // the counters count every copy
  EXPECT_EQ(CountEffects(*store_), 1);
}

TEST_F(PipelineTest, LegitimateSecondPaymentWithNewKeyIsNotBlocked) {
  Publish(R"({"payment_id":"P1","amount":100})");
  Publish(R"({"payment_id":"P2","amount":100})");
  auto p = Make();
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 2);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 200);
}

TEST_F(PipelineTest, SameKeyDifferentPayloadIsAConflictNotADuplicate) {
  Publish(R"({"payment_id":"P1","amount":100})");
  auto p = Make();
  Drain(*p);
  Publish(R"({"payment_id":"P1","amount":999})", "evil");
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 1);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 100);
  EXPECT_EQ(Count(DecisionKind::kConflict), 1);
  auto dead = queue_->List(10);
  ASSERT_TRUE(dead.ok());
  ASSERT_EQ(dead->size(), 1u);
  EXPECT_EQ((*dead)[0].message.id, "evil");
  EXPECT_NE((*dead)[0].reason.find("different payload"), std::string::npos) << (*dead)[0].reason;
}

TEST_F(PipelineTest, ConflictInsideOneBatchIsParkedToo) {
  Publish(R"({"payment_id":"P1","amount":100})", "a");
  Publish(R"({"payment_id":"P1","amount":5})", "b");
  auto p = Make();
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 1);
  EXPECT_EQ(Count(DecisionKind::kConflict), 1);
  EXPECT_EQ(Stats().dead, 1);
}

// A copy is judged against the stored record, never against its neighbours: a
// conflicting variant first in the batch must not turn the byte-exact copy
// behind it into a conflict (it used to: "same key as message evil in this batch").
TEST_F(PipelineTest, ExactCopyOfAnAppliedPaymentIsADuplicateEvenBehindAConflictingVariant) {
  Publish(R"({"payment_id":"P1","amount":100})", "a");
  auto p = Make();
  Drain(*p);
  decisions_.clear();
  Publish(R"({"payment_id":"P1","amount":999})", "evil");
  Publish(R"({"payment_id":"P1","amount":100})", "a-again");
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 1);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 100);
  ASSERT_EQ(decisions_.size(), 2u);
  for (const Decision& d : decisions_) {
    if (d.message_id == "evil") EXPECT_EQ(d.kind, DecisionKind::kConflict);
    if (d.message_id == "a-again") EXPECT_EQ(d.kind, DecisionKind::kDuplicate) << d.reason;
  }
  auto dead = queue_->List(10);
  ASSERT_TRUE(dead.ok());
  ASSERT_EQ(dead->size(), 1u) << "only the variant is parked";
  EXPECT_EQ((*dead)[0].message.id, "evil");
  EXPECT_NE((*dead)[0].reason.find("already recorded by message a"), std::string::npos) << (*dead)[0].reason;
  EXPECT_EQ(Stats().ready + Stats().delayed + Stats().in_flight, 0) << "the copy was acked";
}

// A key new to the store: the first of it in the batch applies, a byte-exact
// copy of that one is a duplicate, a variant is a conflict with it.
TEST_F(PipelineTest, VariantOfANewKeyInOneBatchIsAConflictWithItsNeighbour) {
  Publish(R"({"payment_id":"P1","amount":5})", "b");
  Publish(R"({"payment_id":"P1","amount":100})", "a");
  Publish(R"({"payment_id":"P1","amount":5})", "b-copy");
  auto p = Make();
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 1);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 5) << "the first of the key applied";
  EXPECT_EQ(Count(DecisionKind::kFirst), 1);
  EXPECT_EQ(Count(DecisionKind::kDuplicate), 1);
  EXPECT_EQ(Count(DecisionKind::kConflict), 1);
  EXPECT_EQ(Stats().dead, 1);
}

TEST_F(PipelineTest, EachConsumerGroupAppliesOnce) {
  Publish(R"({"payment_id":"P1","amount":10})");
  PipelineOptions a;
  a.consumer_group = "ledger";
  auto pa = Make(a);
  Drain(*pa);
  // A second group sees the same event (the queue is re-published for it here).
  Publish(R"({"payment_id":"P1","amount":10})");
  Publish(R"({"payment_id":"P1","amount":10})");
  PipelineOptions b;
  b.consumer_group = "points";
  auto pb = Make(b);
  Drain(*pb);
  EXPECT_EQ(CountEffects(*store_), 2);
  EXPECT_EQ(ReadRecord("pay:P1", "ledger").status, RecordStatus::kSucceeded);
  EXPECT_EQ(ReadRecord("pay:P1", "points").status, RecordStatus::kSucceeded);
}

TEST_F(PipelineTest, RetryableFailureWalksTheLadderThenParks) {
  Publish(R"({"payment_id":"P9","amount":50,"fail":"retryable"})");
  auto p = Make();
  std::vector<int64_t> delays;
  for (int attempt = 1; attempt <= 5; ++attempt) {
    Drain(*p);
    EXPECT_EQ(CountEffects(*store_), 0) << "effects of a failed attempt must roll back";
    EXPECT_EQ(Balance(*store_, "u1"), 1000000);
    if (attempt < 5) {
      EXPECT_EQ(Stats().delayed, 1) << "attempt " << attempt;
      EXPECT_EQ(ReadRecord("pay:P9").status, RecordStatus::kReleased);
      delays.push_back(decisions_.back().delay_ms);
      env_.Advance(decisions_.back().delay_ms);
    }
  }
  EXPECT_EQ(delays, (std::vector<int64_t>{30'000, 60'000, 300'000, 300'000}));
  Record r = ReadRecord("pay:P9");
  EXPECT_EQ(r.status, RecordStatus::kFailed);
  EXPECT_EQ(r.attempts, 5);
  auto dead = queue_->List(10);
  ASSERT_TRUE(dead.ok());
  ASSERT_EQ(dead->size(), 1u);
  EXPECT_EQ((*dead)[0].attempts, 5);
  EXPECT_NE((*dead)[0].reason.find("gave up after 5 attempts: bank timeout"), std::string::npos);
  EXPECT_GT((*dead)[0].last_failed_ms, (*dead)[0].first_failed_ms);
  EXPECT_EQ(Count(DecisionKind::kRetry), 4);
  EXPECT_EQ(Count(DecisionKind::kParked), 1);
}

TEST_F(PipelineTest, ThrowAfterPartialEffectRollsBackThatEffect) {
  Publish(R"({"payment_id":"P3","amount":70,"fail":"throw"})");
  auto p = Make();
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 0);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000);
  ASSERT_FALSE(decisions_.empty());
  EXPECT_EQ(decisions_.back().kind, DecisionKind::kRetry);
  EXPECT_NE(decisions_.back().reason.find("boom after the deduction"), std::string::npos);
}

TEST_F(PipelineTest, PermanentFailureParksAtOnceAndCopiesAreParkedNotRerun) {
  Publish(R"({"payment_id":"P4","amount":70,"fail":"permanent"})", "x");
  auto p = Make();
  Drain(*p);
  EXPECT_EQ(Stats().dead, 1);
  EXPECT_EQ(ReadRecord("pay:P4").status, RecordStatus::kFailed);
  EXPECT_EQ(ReadRecord("pay:P4").attempts, 1);
  // A late broker copy of the same message: not run again, but parked too — the
  // first park may never have reached the broker (a crash between commit and settle).
  Publish(R"({"payment_id":"P4","amount":70,"fail":"permanent"})", "x");
  Drain(*p);
  EXPECT_EQ(Stats().dead, 2);
  EXPECT_EQ(ReadRecord("pay:P4").attempts, 1);
  EXPECT_EQ(decisions_.back().kind, DecisionKind::kParked);
  EXPECT_EQ(CountEffects(*store_), 0);
}

// A Source that loses the settlements of its next batch, as a consumer that
// dies between COMMIT and ack does.
class LoseNextSettle final : public Source {
 public:
  explicit LoseNextSettle(Source* inner) : inner_(inner) {}
  Result<std::vector<Message>> Poll(size_t max, int64_t wait) override { return inner_->Poll(max, wait); }
  Status Settle(const std::vector<Settlement>& s) override {
    if (std::exchange(lose_, false)) return Status::OK();
    return inner_->Settle(s);
  }
  Status Abandon() override { return inner_->Abandon(); }

 private:
  Source* inner_;
  bool lose_ = true;
};

TEST_F(PipelineTest, PermanentFailureWhoseParkWasLostIsParkedWhenRedelivered) {
  Publish(R"({"payment_id":"P4","amount":70,"fail":"permanent"})", "x");
  LoseNextSettle crashing(queue_.get());
  PipelineOptions o;
  o.max_linger_ms = 0;
  Pipeline p(&crashing, store_.get(), &env_, o);
  ASSERT_TRUE(p.Register(PayHandler()).ok());
  p.RunOnce();  // FAILED is committed, the park never reaches the queue
  EXPECT_EQ(ReadRecord("pay:P4").status, RecordStatus::kFailed);
  EXPECT_EQ(Stats().dead, 0);
  env_.Advance(30'001);  // the visibility timeout: the queue hands the same copy out again
  Drain(p);
  EXPECT_EQ(Stats().dead, 1) << "the message must reach the terminal queue, not be acked away";
  EXPECT_EQ(Stats().ready + Stats().delayed + Stats().in_flight, 0);
  auto dead = queue_->List(10);
  ASSERT_TRUE(dead.ok() && dead->size() == 1);
  EXPECT_NE((*dead)[0].reason.find("bad payment"), std::string::npos) << (*dead)[0].reason;
  EXPECT_EQ(ReadRecord("pay:P4").attempts, 1) << "parked again without running the handler again";
  EXPECT_EQ(CountEffects(*store_), 0);
}

// Found by the payments demo on RabbitMQ: a consumer that dies between the
// commit of a failed attempt and the move to the delay tier gets the copy back
// at once (RabbitMQ requeues on a lost connection). Running it then would spend
// an attempt without the ladder's wait, and a crash loop would park a message
// that only needed time.
TEST_F(PipelineTest, ACopyBackBeforeItsRetryIsDueWaitsWithoutSpendingAnAttempt) {
  Publish(R"({"payment_id":"P5","amount":10,"fail":"retryable"})", "x");
  LoseNextSettle crashing(queue_.get());
  PipelineOptions o;
  o.max_linger_ms = 0;
  Pipeline p(&crashing, store_.get(), &env_, o);
  ASSERT_TRUE(p.Register(PayHandler()).ok());
  p.SetDecisionSink([this](const Decision& d) { decisions_.push_back(d); });
  p.RunOnce();  // attempt 1 fails and is committed as RELEASED; the retry move is lost
  ASSERT_EQ(ReadRecord("pay:P5").attempts, 1);
  ASSERT_TRUE(queue_->Abandon().ok());  // the broker has it back, ready now

  env_.Advance(1'000);
  ASSERT_EQ(p.RunOnce().polled, 1u);
  EXPECT_EQ(ReadRecord("pay:P5").attempts, 1) << "the handler must not run before the 30 s rung is over";
  ASSERT_EQ(Count(DecisionKind::kReleased), 1);
  EXPECT_EQ(decisions_.back().delay_ms, 29'000);
  EXPECT_EQ(Stats().delayed, 1) << "held back in the queue, not lost";

  env_.Advance(29'000);
  ASSERT_EQ(p.RunOnce().polled, 1u);
  EXPECT_EQ(ReadRecord("pay:P5").attempts, 2) << "once due, the retry runs";
  EXPECT_EQ(decisions_.back().kind, DecisionKind::kRetry);
  EXPECT_EQ(decisions_.back().delay_ms, 60'000);
}

TEST_F(PipelineTest, ReplayFromTerminalQueueRunsAgainAfterTheFixAndOnlyOnce) {
  // The handler refuses payments for user "u3" until the account exists.
  Publish(R"({"payment_id":"P5","amount":30,"user":"u3"})");
  auto p = Make();
  Drain(*p);
  ASSERT_EQ(Stats().dead, 1);
  ASSERT_TRUE(store_->ExecScript("INSERT INTO accounts (owner, balance) VALUES ('u3', 100)").ok());
  auto dead = queue_->List(10);
  ASSERT_TRUE(dead.ok() && dead->size() == 1);
  auto moved = queue_->Replay({(*dead)[0].id}, "alice");
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(*moved, 1);
  Drain(*p);
  EXPECT_EQ(Balance(*store_, "u3"), 100) << "a replay without the store's grant is parked again";
  ASSERT_EQ(Stats().dead, 1);
  // What `idem dlq replay` writes with its audit row (store/replay_grants.h).
  dead = queue_->List(10);
  ASSERT_TRUE(dead.ok() && dead->size() == 1);
  {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(replay_grants::Write(**tx, 1, "alice", {(*dead)[0].message}, env_.NowMs()).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  ASSERT_EQ(*queue_->Replay({(*dead)[0].id}, "alice"), 1);
  Drain(*p);
  EXPECT_EQ(Balance(*store_, "u3"), 70);
  EXPECT_EQ(ReadRecord("pay:P5").status, RecordStatus::kSucceeded);
  EXPECT_EQ(ReadRecord("pay:P5").attempts, 2);
  // Replaying a message whose effect already happened produces no second effect.
  Publish(R"({"payment_id":"P5","amount":30,"user":"u3"})");
  Drain(*p);
  EXPECT_EQ(Balance(*store_, "u3"), 70);
  EXPECT_EQ(Stats().dead, 0);
}

TEST_F(PipelineTest, OneFailingMessageDoesNotSpoilItsNeighbours) {
  BatchReport r = RunBetweenNeighbours(R"({"payment_id":"B","amount":2,"fail":"permanent"})");
  EXPECT_EQ(r.parked, 1u);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 4);
}

TEST_F(PipelineTest, BadInputIsParkedWithAReason) {
  Publish("not json at all");
  Publish(R"({"amount":5})");                        // no key field
  Publish(R"({"payment_id":"P1","amount":1})", "", "unknown-topic");
  Publish("{\"payment_id\":\"" + std::string(2 << 20, 'x') + "\"}");  // 2 MiB
  auto p = Make();
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 0);
  auto dead = queue_->List(10);
  ASSERT_TRUE(dead.ok());
  ASSERT_EQ(dead->size(), 4u);
  EXPECT_NE((*dead)[0].reason.find("not valid JSON"), std::string::npos);
  EXPECT_NE((*dead)[1].reason.find("no field 'payment_id'"), std::string::npos);
  EXPECT_NE((*dead)[2].reason.find("no handler is registered for topic 'unknown-topic'"), std::string::npos);
  EXPECT_NE((*dead)[3].reason.find("over the limit"), std::string::npos);
  EXPECT_EQ((*dead)[3].message.payload.size(), (2u << 20) + 17);  // stored byte-exact
}

TEST_F(PipelineTest, InProcessRetriesRecoverFromAGlitch) {
  int calls = 0;
  HandlerSpec spec = PayHandler();
  auto inner = spec.fn;
  spec.fn = [&](HandlerContext& ctx) -> HandlerResult {
    if (++calls == 1) {
      (void)ctx.tx.Exec("INSERT INTO effects (key, msg_id, amount) VALUES ('junk', 'x', 1)", {});
      return HandlerResult::Retryable("glitch");
    }
    return inner(ctx);
  };
  PipelineOptions o;
  o.retry.in_process_tries = 3;
  auto p = Make(o, spec);
  Publish(R"({"payment_id":"P1","amount":5})");
  const int64_t before = env_.NowMs();
  Drain(*p);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(CountEffects(*store_), 1) << "the glitching attempt's write must be rolled back";
  EXPECT_EQ(ReadRecord("pay:P1").attempts, 1);
  EXPECT_GE(env_.NowMs() - before, 1000);  // waited in_process_backoff_ms through Env
}

TEST_F(PipelineTest, LiveClaimOfAnotherWorkerHoldsTheMessageBackExpiredOneIsTakenOver) {
  // Another worker claimed the key (committed PROCESSING with a lease) and may still be running.
  const std::string payload = R"({"payment_id":"P7","amount":5})";
  Message m;
  m.topic = "pay";
  m.payload = payload;
  auto id = DeriveIdentity(m, PayHandler());
  ASSERT_TRUE(id.ok());
  {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    ClaimRequest req{id->key, id->fingerprint, "other-worker"};
    ASSERT_TRUE((*tx)->Claim("default", {&req, 1}, env_.NowMs(), env_.NowMs() + 60'000).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  Publish(payload);
  auto p = Make();
  p->RunOnce();
  EXPECT_EQ(CountEffects(*store_), 0);
  EXPECT_EQ(decisions_.back().kind, DecisionKind::kInFlight);
  EXPECT_EQ(Stats().delayed, 1) << "held back, not lost";
  // The other worker never finishes: after its lease the claim is taken over.
  env_.Advance(60'001);
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 1);
  EXPECT_EQ(ReadRecord("pay:P7").status, RecordStatus::kSucceeded);
}

TEST_F(PipelineTest, ProtectionOffAppliesEveryCopy) {
  // The guard disabled: what the incident's consumer did. This proves the effect
  // counts above can fail.
  Publish(R"({"payment_id":"P1","amount":100})", "a");
  Publish(R"({"payment_id":"P1","amount":100})", "b");
  auto p = Make();
  PipelineTestHooks::TurnGuardOff(*p);
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 2);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 200);
}

TEST_F(PipelineTest, DecisionLogLineCarriesKeyIdAttemptButNoPayload) {
  Publish(R"({"payment_id":"P1","amount":100,"card":"4111111111111111"})", "m-1");
  auto p = Make();
  Drain(*p);
  ASSERT_EQ(decisions_.size(), 1u);
  std::string line = DecisionToJson(decisions_[0]);
  EXPECT_NE(line.find("\"decision\":\"FIRST\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"key\":\"pay:P1\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"msg_id\":\"m-1\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"attempt\":1"), std::string::npos) << line;
  EXPECT_EQ(line.find("4111"), std::string::npos) << "payload secrets must never reach the log";
}

}  // namespace
}  // namespace idem
