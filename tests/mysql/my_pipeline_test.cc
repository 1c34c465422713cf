// The guard pipeline on MariaDB: several consumers' connections racing over
// one database with injected duplicates, a COMMIT whose connection is killed
// while it waits, and deadlocks between consumers. Effects are counted with
// plain SQL on a separate admin connection.
#include <gtest/gtest.h>

#include <thread>

#include "idem/embedded_queue.h"
#include "idem/pipeline.h"
#include "mysql/my_test_support.h"
#include "testing/consumer_group.h"
#include "testing/opposing_transfers.h"
#include "testing/portable_pay.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

class MyPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (MysqlTestUrl().empty()) GTEST_SKIP() << kNoMysql;
    url_ = FreshDatabaseUrl();
    ASSERT_FALSE(url_.empty());
    store_ = OpenMyStoreOrFail(url_);
    ASSERT_NE(store_, nullptr);
    CreateMyEffectTables(*store_);
    queue_ = OpenQueue();
    ASSERT_NE(queue_, nullptr);
  }

  std::unique_ptr<EmbeddedQueue> OpenQueue() {
    auto q = EmbeddedQueue::Open(dir_.File("queue.db"), {}, Env::Default());
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    return q.ok() ? std::move(*q) : nullptr;
  }

  static PipelineOptions Options() {
    PipelineOptions o;
    o.max_linger_ms = 0;
    o.batch_size = 5;
    o.unavailable_backoff_min_ms = 5;  // released messages come back quickly in tests
    o.unavailable_backoff_max_ms = 50;
    return o;
  }

  std::unique_ptr<Pipeline> MakePipeline(Source* source, Store* store, HandlerSpec spec = MyPayHandler()) {
    auto p = std::make_unique<Pipeline>(source, store, Env::Default(), Options());
    EXPECT_TRUE(p->Register(spec).ok());
    return p;
  }

  void Publish(const std::string& payment_id, int64_t amount, const std::string& msg_id) {
    Message m;
    m.id = msg_id;
    m.topic = "pay";
    m.payload = R"({"payment_id":")" + payment_id + R"(","amount":)" + std::to_string(amount) + "}";
    ASSERT_TRUE(queue_->Publish(m).ok());
  }

  void Drain(Pipeline& p) {
    ASSERT_TRUE(WaitFor(
        [&] {
          p.RunOnce();
          return QueueSettled(*queue_);
        },
        30'000))
        << "the queue never settled";
  }

  // Plain SQL on an admin connection, behind the stores' backs.
  int64_t Sql(const std::string& sql) { return AdminInt(sql, DatabaseOf(url_)); }

  TempDir dir_;
  std::string url_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<EmbeddedQueue> queue_;
};

TEST_F(MyPipelineTest, CopiesInOneBatchAndAcrossBatchesApplyOnce) {
  Publish("P1", 100, "a");
  Publish("P1", 100, "a");  // redelivery of the same copy
  Publish("P1", 100, "b");  // producer resend under a new id
  auto p = MakePipeline(queue_.get(), store_.get());
  Drain(*p);
  Publish("P1", 100, "c");
  Drain(*p);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM effects"), 1);
  EXPECT_EQ(Sql("SELECT balance FROM accounts WHERE owner = 'u1'"), 1000000 - 100);
  EXPECT_EQ(p->counters().first, 1);
  EXPECT_EQ(p->counters().duplicate, 3);
  auto r = store_->ReadRecord("default", "pay:P1");
  ASSERT_TRUE(r.ok() && r->has_value()) << r.status().ToString();
  EXPECT_EQ((*r)->status, RecordStatus::kSucceeded);
  EXPECT_EQ((*r)->duplicates, 0);  // the later copy came within duplicate_refresh_after_ms: no write
}

// Four consumers, each with its own queue handle and MariaDB connection, over
// one database. Each payment arrives three times, spaced so that copies of one
// payment land in different consumers' batches at the same time.
TEST_F(MyPipelineTest, ConcurrentConsumersWithInjectedDuplicatesApplyEachPaymentOnce) {
  constexpr int kPayments = 60, kCopies = 3, kChunk = 10, kConsumers = 4;
  int64_t total = 0;
  std::vector<Message> messages = PaymentCopies(kPayments, kCopies, kChunk, &total);
  ASSERT_TRUE(queue_->PublishBatch(messages).ok());
  ConsumerGroup group(kConsumers, [&](int) {
    ConsumerParts c;
    c.queue = OpenQueue();
    c.store = OpenMyStoreOrFail(url_);
    c.pipeline = MakePipeline(c.queue.get(), c.store.get());
    return c;
  });
  ASSERT_TRUE(WaitFor([&] { return QueueSettled(*queue_); }, 60'000)) << "the queue never settled";
  group.Stop();

  EXPECT_EQ(Sql("SELECT COUNT(*) FROM effects"), kPayments);
  EXPECT_EQ(Sql("SELECT COUNT(DISTINCT k) FROM effects"), kPayments);
  EXPECT_EQ(Sql("SELECT balance FROM accounts WHERE owner = 'u1'"), 1000000 - total);
  EXPECT_EQ(group.Sum(&DecisionCounters::first), kPayments);
  EXPECT_EQ(group.Sum(&DecisionCounters::duplicate), kPayments * (kCopies - 1));
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM idem_records WHERE status = 'SUCCEEDED' AND attempts = 1"), kPayments);
  auto stats = queue_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->dead, 0);
}

// BACKUP STAGE BLOCK_COMMIT in an admin session lets the batch write but holds
// its COMMIT; once the consumer's session is seen waiting in COMMIT, the admin
// kills it. The COMMIT's answer is lost: the pipeline must re-read the record,
// find that nothing landed, and run the batch again — one effect per payment.
TEST_F(MyPipelineTest, ConnectionKilledDuringCommitEndsWithExactlyOneEffect) {
  Publish("P1", 10, "a");
  Publish("P2", 20, "b");
  auto consumer_store = OpenMyStoreOrFail(url_);
  ASSERT_NE(consumer_store, nullptr);
  int64_t session = 0;
  {
    auto tx = consumer_store->Begin();
    ASSERT_TRUE(tx.ok());
    auto rows = (*tx)->Query("SELECT CONNECTION_ID()", {});
    ASSERT_TRUE(rows.ok());
    session = AsInt((*rows)[0][0]);
  }
  auto p = MakePipeline(queue_.get(), consumer_store.get());
  AdminSession admin;
  ASSERT_TRUE(admin.Run("BACKUP STAGE START"));
  ASSERT_TRUE(admin.Run("BACKUP STAGE BLOCK_COMMIT"));
  std::thread first_batch([&] { p->RunOnce(); });
  const bool in_commit = WaitFor(
      [&] {
        return AdminInt("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + std::to_string(session) +
                        " AND INFO = 'COMMIT'") == 1;
      },
      20'000);
  EXPECT_TRUE(in_commit) << "the batch never reached COMMIT";
  EXPECT_TRUE(admin.Run("KILL CONNECTION " + std::to_string(session)));
  first_batch.join();
  EXPECT_TRUE(admin.Run("BACKUP STAGE END"));
  EXPECT_EQ(p->counters().commit_failures, 1);
  Drain(*p);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM effects"), 2);
  EXPECT_EQ(Sql("SELECT balance FROM accounts WHERE owner = 'u1'"), 1000000 - 30);
  EXPECT_EQ(p->counters().first, 2);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM idem_records WHERE status = 'SUCCEEDED' AND attempts = 1"), 2);
}

// Four consumers move money between the same two accounts in opposite
// directions; the first transfer of each direction locks its source account
// and waits until the other has too, so the next UPDATE closes a cycle and
// InnoDB rolls one transaction back (1213) — all of it, savepoints included.
// The victim's batch is rerun from the start: every transfer applies exactly
// once, at its first attempt, nothing goes to a retry delay or the dead-letter queue.
TEST_F(MyPipelineTest, DeadlocksBetweenConsumersAreRerunNotRetriedOrDeadLettered) {
  constexpr int kTransfers = 4, kConsumers = 4;
  std::vector<Message> messages = OpposingTransfers(kTransfers);
  ASSERT_TRUE(queue_->PublishBatch(messages).ok());
  OneShotBarrier barrier(2);
  PipelineOptions o = Options();
  o.batch_size = 1;
  o.retry.ladder_ms = {50};  // a wrongly retried message would come back at once, and fail the checks below
  ConsumerGroup group(kConsumers, [&](int) {
    ConsumerParts c;
    c.queue = OpenQueue();
    c.store = OpenMyStoreOrFail(url_);
    c.pipeline = std::make_unique<Pipeline>(c.queue.get(), c.store.get(), Env::Default(), o);
    EXPECT_TRUE(
        c.pipeline->Register(TransferHandler(&barrier, "INSERT INTO effects (k, msg_id, amount) VALUES (?, ?, ?)"))
            .ok());
    return c;
  });
  ASSERT_TRUE(WaitFor([&] { return QueueSettled(*queue_); }, 60'000)) << "the queue never settled";
  group.Stop();

  EXPECT_GE(group.Sum(&DecisionCounters::transaction_retries), 1)
      << "no deadlock happened, so this test proved nothing";
  EXPECT_EQ(group.Sum(&DecisionCounters::first), kTransfers);
  EXPECT_EQ(group.Sum(&DecisionCounters::retried), 0) << "a deadlock is not the message's failure";
  EXPECT_EQ(group.Sum(&DecisionCounters::released), 0);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM effects"), kTransfers);
  EXPECT_EQ(Sql("SELECT COUNT(DISTINCT k) FROM effects"), kTransfers);
  EXPECT_EQ(Sql("SELECT balance FROM accounts WHERE owner = 'u1'"), 1000000 - 2 * 7 + 2 * 3);
  EXPECT_EQ(Sql("SELECT balance FROM accounts WHERE owner = 'u2'"), 1000000 + 2 * 7 - 2 * 3);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM idem_records WHERE attempts <> 1 OR status <> 'SUCCEEDED'"), 0);
  auto stats = queue_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->dead + stats->delayed + stats->ready + stats->in_flight, 0);
}

}  // namespace
}  // namespace idem::testing
