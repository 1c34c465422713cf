// The guard pipeline on PostgreSQL: copies applied once, several consumer
// processes' worth of connections racing over one database, and
// commits whose answer is lost. Effects are counted in the database.
#include <gtest/gtest.h>

#include "idem/embedded_queue.h"
#include "idem/pipeline.h"
#include "postgres/pg_test_support.h"
#include "testing/consumer_group.h"
#include "testing/forwarding_store.h"
#include "testing/portable_pay.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

class PgPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (PostgresTestUrl().empty()) GTEST_SKIP() << kNoPostgres;
    url_ = FreshSchemaUrl();
    ASSERT_FALSE(url_.empty());
    store_ = OpenPgStoreOrFail(url_);
    ASSERT_NE(store_, nullptr);
    CreateEffectTables(*store_);
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

  std::unique_ptr<Pipeline> MakePipeline(Source* source, Store* store) {
    auto p = std::make_unique<Pipeline>(source, store, Env::Default(), Options());
    EXPECT_TRUE(p->Register(PayHandler()).ok());
    return p;
  }

  void Publish(const std::string& payment_id, int64_t amount, const std::string& msg_id) {
    Message m;
    m.id = msg_id;
    m.topic = "pay";
    m.payload = R"({"payment_id":")" + payment_id + R"(","amount":)" + std::to_string(amount) + "}";
    ASSERT_TRUE(queue_->Publish(m).ok());
  }

  // Runs batches until nothing is left to deliver (released messages come back after their delay).
  void Drain(Pipeline& p) {
    ASSERT_TRUE(WaitFor(
        [&] {
          p.RunOnce();
          return QueueSettled(*queue_);
        },
        30'000))
        << "the queue never settled";
  }

  TempDir dir_;
  std::string url_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<EmbeddedQueue> queue_;
};

TEST_F(PgPipelineTest, CopiesInOneBatchAndAcrossBatchesApplyOnce) {
  Publish("P1", 100, "a");
  Publish("P1", 100, "a");  // redelivery of the same copy
  Publish("P1", 100, "b");  // producer resend under a new id
  auto p = MakePipeline(queue_.get(), store_.get());
  Drain(*p);
  Publish("P1", 100, "c");
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 1);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 100);
  EXPECT_EQ(p->counters().first, 1);
  EXPECT_EQ(p->counters().duplicate, 3);
  auto r = store_->ReadRecord("default", "pay:P1");
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->status, RecordStatus::kSucceeded);
  EXPECT_EQ((*r)->duplicates, 0);  // the later copy came within duplicate_refresh_after_ms: no write
}

// Four consumers, each with its own queue handle and PostgreSQL connection, over
// one database. Each payment arrives three times, spaced so that copies of one
// payment land in different consumers' batches at the same time.
TEST_F(PgPipelineTest, ConcurrentConsumersWithInjectedDuplicatesApplyEachPaymentOnce) {
  constexpr int kPayments = 60, kCopies = 3, kChunk = 10, kConsumers = 4;
  int64_t total = 0;
  std::vector<Message> messages = PaymentCopies(kPayments, kCopies, kChunk, &total);
  ASSERT_TRUE(queue_->PublishBatch(messages).ok());
  ConsumerGroup group(kConsumers, [&](int) {
    ConsumerParts c;
    c.queue = OpenQueue();
    c.store = OpenPgStoreOrFail(url_);
    c.pipeline = MakePipeline(c.queue.get(), c.store.get());
    return c;
  });
  ASSERT_TRUE(WaitFor([&] { return QueueSettled(*queue_); }, 60'000)) << "the queue never settled";
  group.Stop();

  EXPECT_EQ(CountEffects(*store_), kPayments);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - total);
  EXPECT_EQ(group.Sum(&DecisionCounters::first), kPayments);
  EXPECT_EQ(group.Sum(&DecisionCounters::duplicate), kPayments * (kCopies - 1));
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_records WHERE status = 'SUCCEEDED' AND attempts = 1"),
            kPayments);
  auto stats = queue_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->dead, 0);
}

// Commits, then reports the answer lost — the case a real lost connection
// cannot produce on demand: the batch landed, and the pipeline must find that
// out from the record instead of running it again.
class LoseCommitAnswerOnce final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  bool lost() const { return lost_; }

 private:
  class Tx final : public ForwardingTx {
   public:
    Tx(std::unique_ptr<StoreTx> inner, bool* lost) : ForwardingTx(std::move(inner)), lost_(lost) {}
    Status Commit() override {
      IDEM_RETURN_IF_ERROR(inner_->Commit());
      if (*lost_) return Status::OK();
      *lost_ = true;
      return Status::InDoubt("test: the COMMIT landed but its answer was lost");
    }

   private:
    bool* lost_;
  };
  std::unique_ptr<StoreTx> Wrap(std::unique_ptr<StoreTx> tx) override {
    return std::make_unique<Tx>(std::move(tx), &lost_);
  }
  bool lost_ = false;
};

TEST_F(PgPipelineTest, CommitThatLandedButLostItsAnswerIsAckedNotRunAgain) {
  LoseCommitAnswerOnce store(store_.get());
  Publish("P1", 10, "a");
  auto p = MakePipeline(queue_.get(), &store);
  Drain(*p);
  ASSERT_TRUE(store.lost());
  Publish("P1", 10, "b");
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 1);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 10);
  EXPECT_EQ(p->counters().first, 1);
  EXPECT_EQ(p->counters().duplicate, 1);
}

// A deferred trigger kills the session while COMMIT runs, on the first batch
// only: a real lost connection during COMMIT. Whatever the server did with that
// COMMIT, the payment ends up applied exactly once.
TEST_F(PgPipelineTest, ConnectionLostDuringCommitEndsWithExactlyOneEffect) {
  ASSERT_TRUE(store_->ExecScript(R"sql(
    CREATE SEQUENCE lose_commit_once;
    CREATE FUNCTION lose_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF nextval('lose_commit_once') = 1 THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER lose_commit AFTER INSERT ON effects DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION lose_commit();
  )sql").ok());
  Publish("P1", 10, "a");
  Publish("P2", 20, "b");
  auto p = MakePipeline(queue_.get(), store_.get());
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 2);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 30);
  EXPECT_EQ(p->counters().first, 2);
  // The session dies inside the deferred trigger, before the commit record is
  // written: the COMMIT did not land, the re-read said so, and the batch ran again.
  EXPECT_EQ(p->counters().commit_failures, 1);
  EXPECT_EQ(QueryInt(*store_, "SELECT last_value FROM lose_commit_once"), 3) << "one killed COMMIT, then two rows";
}

}  // namespace
}  // namespace idem::testing
