#include "idem/embedded_queue.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

#include "idem/store.h"
#include "source/embedded/queue_sql.h"
#include "testing/test_util.h"
#include "sim/sim_env.h"

namespace idem {
namespace {

using testing::TempDir;

class EmbeddedQueueTest : public ::testing::Test {
 protected:
  void SetUp() override { queue_ = Open(); }

  std::unique_ptr<EmbeddedQueue> Open(EmbeddedQueueOptions o = {}) {
    auto q = EmbeddedQueue::Open(dir_.File("q.db"), o, &env_);
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    return q.ok() ? std::move(*q) : nullptr;
  }

  Message Msg(const std::string& payload, const std::string& topic = "pay") {
    Message m;
    m.topic = topic;
    m.payload = payload;
    return m;
  }

  std::vector<Message> Poll(EmbeddedQueue& q, size_t n = 10) {
    auto r = q.Poll(n, 0);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(*r) : std::vector<Message>{};
  }

  Status Settle(EmbeddedQueue& q, const Message& m, Settlement::Kind kind, int64_t delay = 0,
                const std::string& reason = "", int attempts = 1) {
    Settlement s;
    s.message = &m;
    s.kind = kind;
    s.delay_ms = delay;
    s.reason = reason;
    s.attempts = attempts;
    return q.Settle({s});
  }

  TempDir dir_;
  sim::SimEnv env_{/*seed=*/42};
  std::unique_ptr<EmbeddedQueue> queue_;
};

TEST_F(EmbeddedQueueTest, AnExistingOnlyOpenCreatesNothing) {
  EmbeddedQueueOptions inspect;
  inspect.create_if_missing = false;
  const std::string missing = dir_.File("typo.db");
  auto q = EmbeddedQueue::Open(missing, inspect, &env_);
  ASSERT_FALSE(q.ok());
  EXPECT_TRUE(q.status().IsNotFound()) << q.status().ToString();
  EXPECT_NE(q.status().message().find("typo.db"), std::string::npos) << q.status().ToString();
  EXPECT_FALSE(std::filesystem::exists(missing)) << "a mistyped path must not leave a queue behind";

  // An SQLite file that is not a queue (a store, say) is refused and not turned into one.
  const std::string other = dir_.File("store.db");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(other.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE accounts (id INTEGER)", nullptr, nullptr, nullptr), SQLITE_OK);
  q = EmbeddedQueue::Open(other, inspect, &env_);
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("not an idem queue"), std::string::npos) << q.status().ToString();
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'idem_queue%'", -1, &stmt,
                               nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), 0) << "the schema is never written on an existing-only open";
  sqlite3_finalize(stmt);
  sqlite3_close(raw);

  // The queue itself opens and reads as usual.
  ASSERT_TRUE(queue_->Publish(Msg("{}")).ok());
  q = EmbeddedQueue::Open(dir_.File("q.db"), inspect, &env_);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ((*q)->Stats()->ready, 1);
}

TEST_F(EmbeddedQueueTest, PublishPollAckInOrder) {
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(queue_->Publish(Msg("{\"n\":" + std::to_string(i) + "}")).ok());
  auto got = Poll(*queue_);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].payload, "{\"n\":0}");
  EXPECT_EQ(got[2].payload, "{\"n\":2}");
  EXPECT_EQ(got[0].delivery_count, 1);
  EXPECT_FALSE(got[0].redelivered);
  EXPECT_FALSE(got[0].id.empty());
  EXPECT_NE(got[0].id, got[1].id);
  for (auto& m : got) ASSERT_TRUE(Settle(*queue_, m, Settlement::Kind::kAck).ok());
  EXPECT_TRUE(Poll(*queue_).empty());
  env_.Advance(3'600'000);
  EXPECT_TRUE(Poll(*queue_).empty()) << "acked messages never come back";
}

TEST_F(EmbeddedQueueTest, UnackedMessageComesBackAfterTheVisibilityTimeout) {
  ASSERT_TRUE(queue_->Publish(Msg("{}")).ok());
  auto first = Poll(*queue_);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_TRUE(Poll(*queue_).empty()) << "leased, so invisible";
  env_.Advance(29'999);
  EXPECT_TRUE(Poll(*queue_).empty());
  env_.Advance(1);
  auto again = Poll(*queue_);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].id, first[0].id);
  EXPECT_EQ(again[0].delivery_count, 2);
  EXPECT_TRUE(again[0].redelivered);
  // The first holder's lease is gone: its retry/park must not move the message.
  ASSERT_TRUE(Settle(*queue_, first[0], Settlement::Kind::kPark, 0, "stale").ok());
  EXPECT_EQ(queue_->Stats()->dead, 0);
}

TEST_F(EmbeddedQueueTest, AbandonedDeliveriesComeBackAtOnceAndLateSettlementsDoNothing) {
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(queue_->Publish(Msg("{}")).ok());
  auto held = queue_->Poll(2, 0);
  ASSERT_TRUE(held.ok());
  ASSERT_EQ(held->size(), 2u);
  ASSERT_TRUE(Settle(*queue_, (*held)[0], Settlement::Kind::kAck).ok());
  ASSERT_TRUE(queue_->Abandon().ok());
  // No clock movement: the unacked one is ready again next to the untouched third.
  auto again = queue_->Poll(10, 0);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->size(), 2u);
  EXPECT_EQ((*again)[0].id, (*held)[1].id);
  EXPECT_EQ((*again)[0].delivery_count, 2);
  EXPECT_TRUE((*again)[0].redelivered);
  // A late ack of the abandoned copy must not delete the message its new holder works on.
  ASSERT_TRUE(Settle(*queue_, (*held)[1], Settlement::Kind::kAck).ok());
  EXPECT_EQ(queue_->Stats()->in_flight, 2);
  for (auto& m : *again) ASSERT_TRUE(Settle(*queue_, m, Settlement::Kind::kAck).ok());
  auto stats = queue_->Stats();
  EXPECT_EQ(stats->ready + stats->delayed + stats->in_flight, 0);
  EXPECT_TRUE(queue_->Abandon().ok()) << "nothing held: nothing to do";
}

TEST_F(EmbeddedQueueTest, DelayedPublishAndRetryWaitForTheirDelay) {
  ASSERT_TRUE(queue_->Publish(Msg("{}"), 5'000).ok());
  EXPECT_TRUE(Poll(*queue_).empty());
  EXPECT_EQ(queue_->Stats()->delayed, 1);
  env_.Advance(5'000);
  auto got = Poll(*queue_);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].delivery_count, 1);
  const std::string id = got[0].id;
  ASSERT_TRUE(Settle(*queue_, got[0], Settlement::Kind::kRetry, 30'000, "bank timeout").ok());
  env_.Advance(29'999);
  EXPECT_TRUE(Poll(*queue_).empty());
  env_.Advance(1);
  got = Poll(*queue_);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].id, id) << "the retried message itself comes back";
  EXPECT_EQ(got[0].delivery_count, 2);
}

TEST_F(EmbeddedQueueTest, ReleaseGivesBackAfterItsDelay) {
  ASSERT_TRUE(queue_->Publish(Msg("{}")).ok());
  auto got = Poll(*queue_);
  ASSERT_TRUE(Settle(*queue_, got[0], Settlement::Kind::kRelease, 100).ok());
  env_.Advance(99);
  EXPECT_TRUE(Poll(*queue_).empty());
  env_.Advance(1);
  got = Poll(*queue_);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(got[0].redelivered);
}

TEST_F(EmbeddedQueueTest, ParkedMessageKeepsBodyReasonAttemptsAndTimes) {
  const std::string payload = std::string("{\"k\":\"a\0b\"}\xff\xfe", 14);  // NUL and invalid UTF-8
  Message m = Msg(payload);
  m.key = std::string("k\0y", 3);
  m.headers["trace"] = "t-1";
  ASSERT_TRUE(queue_->Publish(m).ok());
  auto got = Poll(*queue_);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].payload, payload);
  EXPECT_EQ(got[0].key, m.key);
  ASSERT_TRUE(Settle(*queue_, got[0], Settlement::Kind::kRetry, 10, "first").ok());
  env_.Advance(10);
  got = Poll(*queue_);
  ASSERT_EQ(got.size(), 1u);
  ASSERT_TRUE(Settle(*queue_, got[0], Settlement::Kind::kPark, 0, "gave up", /*attempts=*/2).ok());
  auto dead = queue_->List(10);
  ASSERT_TRUE(dead.ok());
  ASSERT_EQ(dead->size(), 1u);
  const DeadLetter& d = (*dead)[0];
  EXPECT_EQ(d.message.payload, payload) << "stored byte-exact";
  EXPECT_EQ(d.message.headers.at("trace"), "t-1");
  EXPECT_EQ(d.reason, "gave up");
  EXPECT_EQ(d.attempts, 2);
  EXPECT_EQ(d.last_failed_ms - d.first_failed_ms, 10);
  auto one = queue_->Get(d.id);
  ASSERT_TRUE(one.ok() && one->has_value());
  EXPECT_EQ((*one)->reason, "gave up");
  EXPECT_TRUE(Poll(*queue_).empty()) << "dead letters are not delivered";
}

TEST_F(EmbeddedQueueTest, ReplayMarksTheMessageAndAuditsTheActor) {
  ASSERT_TRUE(queue_->ParkRejected(Msg("{}"), "bad").ok());
  auto dead = queue_->List(10);
  ASSERT_EQ(dead->size(), 1u);
  auto n = queue_->Replay({(*dead)[0].id, 9999}, "alice");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 1);
  auto got = Poll(*queue_);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].headers.at(kReplayHeader), "alice");
  EXPECT_EQ(queue_->Stats()->dead, 0);
  // The audit trail names who did what.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(dir_.File("q.db").c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "SELECT actor, action, detail FROM idem_queue_audit", -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "alice");
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 1)), "replay");
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 2)), "bad");
  sqlite3_finalize(st);
  sqlite3_close(raw);
}

TEST_F(EmbeddedQueueTest, PurgeDeletesOnlyDeadLetters) {
  ASSERT_TRUE(queue_->Publish(Msg("{}")).ok());
  ASSERT_TRUE(queue_->ParkRejected(Msg("{}"), "bad1").ok());
  ASSERT_TRUE(queue_->ParkRejected(Msg("{}"), "bad2").ok());
  auto n = queue_->Purge({}, "bob");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 2);
  EXPECT_EQ(queue_->Stats()->dead, 0);
  EXPECT_EQ(queue_->Stats()->ready, 1);
}

TEST_F(EmbeddedQueueTest, TopicFilterOnlyDeliversItsTopics) {
  ASSERT_TRUE(queue_->Publish(Msg("{}", "pay")).ok());
  ASSERT_TRUE(queue_->Publish(Msg("{}", "refund")).ok());
  EmbeddedQueueOptions o;
  o.topics = {"refund"};
  auto q = Open(o);
  auto got = Poll(*q);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].topic, "refund");
}

TEST_F(EmbeddedQueueTest, PollWaitsThroughEnvAndBoundsTheBatch) {
  const int64_t before = env_.NowMs();
  auto r = queue_->Poll(10, 200);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->empty());
  EXPECT_EQ(env_.NowMs() - before, 200);
  std::vector<Message> batch;
  for (int i = 0; i < 25; ++i) batch.push_back(Msg("{}"));
  ASSERT_TRUE(queue_->PublishBatch(batch).ok());
  EXPECT_EQ(Poll(*queue_, 10).size(), 10u);
}

TEST_F(EmbeddedQueueTest, SettlingAForeignReceiptIsRefused) {
  Message m = Msg("{}");
  m.receipt = Receipt{};  // never handed out
  EXPECT_FALSE(Settle(*queue_, m, Settlement::Kind::kAck).ok());
}

// With the queue in the store's file, a batch's acks are deleted by id in the
// store's transaction: a lookup per message, not a walk over the whole
// backlog (which made each batch slower the more messages were waiting).
TEST_F(EmbeddedQueueTest, AcksInTheStoresTransactionLookUpTheirRowsByIdWhateverTheBacklog) {
  const std::string file = dir_.File("store.db");
  auto store = OpenSqliteStore(file, {}, &env_);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto queue = EmbeddedQueue::Open(file, {}, &env_);
  ASSERT_TRUE(queue.ok()) << queue.status().ToString();
  std::vector<Message> backlog;
  for (int i = 0; i < 50; ++i) backlog.push_back(Msg("p" + std::to_string(i)));
  ASSERT_TRUE((*queue)->PublishBatch(backlog).ok());
  std::vector<Message> polled = Poll(**queue, 5);
  ASSERT_EQ(polled.size(), 5u);

  auto tx = (*store)->Begin();
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  auto plan = (*tx)->Query(std::string("EXPLAIN QUERY PLAN ") + embedded::kAckIdsSql, {std::string("[]")});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  std::string steps;
  for (const Row& step : *plan) steps += AsText(step.back()) + "; ";
  EXPECT_NE(steps.find("idem_queue USING INTEGER PRIMARY KEY"), std::string::npos) << steps;
  EXPECT_EQ(steps.find("idem_queue_ready"), std::string::npos) << steps;

  auto* in_store = (*queue)->settles_in_store_transaction();
  ASSERT_NE(in_store, nullptr);
  std::vector<const Message*> acked;
  for (const Message& m : polled) acked.push_back(&m);
  auto wrote = in_store->AckInTransaction(**tx, acked);
  ASSERT_TRUE(wrote.ok()) << wrote.status().ToString();
  EXPECT_TRUE(*wrote);
  ASSERT_TRUE((*tx)->Commit().ok());
  in_store->AckCommitted(acked);
  auto stats = (*queue)->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->ready, 45) << "the five acked messages are gone, the rest still wait";
  EXPECT_EQ(stats->in_flight, 0);
}

}  // namespace
}  // namespace idem
