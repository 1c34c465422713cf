#include "conformance/pipeline_conformance.h"

#include "testing/consumer_group.h"
#include "testing/forwarding_store.h"
#include "testing/portable_pay.h"

namespace idem::testing {

namespace {

TEST_P(PipelineConformance, CopiesInOneBatchAndAcrossBatchesApplyOnce) {
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

// Four consumers, each with its own queue handle and store connection, over
// one database. Each payment arrives three times, spaced so that copies of one
// payment land in different consumers' batches at the same time.
TEST_P(PipelineConformance, ConcurrentConsumersWithInjectedDuplicatesApplyEachPaymentOnce) {
  constexpr int kPayments = 60, kCopies = 3, kChunk = 10, kConsumers = 4;
  int64_t total = 0;
  std::vector<Message> messages = PaymentCopies(kPayments, kCopies, kChunk, &total);
  ASSERT_TRUE(queue_->PublishBatch(messages).ok());
  ConsumerGroup group(kConsumers, [&](int) {
    ConsumerParts c;
    c.queue = OpenQueue();
    c.store = Connect();
    c.pipeline = MakePipeline(c.queue.get(), c.store.get());
    return c;
  });
  ASSERT_TRUE(WaitFor([&] { return QueueSettled(*queue_); }, 60'000)) << "the queue never settled";
  group.Stop();

  EXPECT_EQ(Sql("SELECT COUNT(*) FROM effects"), kPayments);
  EXPECT_EQ(Sql("SELECT COUNT(DISTINCT " + EffectKeyColumn(store_->Dialect()) + ") FROM effects"), kPayments);
  EXPECT_EQ(Sql("SELECT balance FROM accounts WHERE owner = 'u1'"), 1000000 - total);
  EXPECT_EQ(group.Sum(&DecisionCounters::first), kPayments);
  EXPECT_EQ(group.Sum(&DecisionCounters::duplicate), kPayments * (kCopies - 1));
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM idem_records WHERE status = 'SUCCEEDED' AND attempts = 1"), kPayments);
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

TEST_P(PipelineConformance, CommitThatLandedButLostItsAnswerIsAckedNotRunAgain) {
  LoseCommitAnswerOnce store(store_.get());
  Publish("P1", 10, "a");
  auto p = MakePipeline(queue_.get(), &store);
  Drain(*p);
  ASSERT_TRUE(store.lost());
  Publish("P1", 10, "b");
  Drain(*p);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM effects"), 1);
  EXPECT_EQ(Sql("SELECT balance FROM accounts WHERE owner = 'u1'"), 1000000 - 10);
  EXPECT_EQ(p->counters().first, 1);
  EXPECT_EQ(p->counters().duplicate, 1);
}

// A real lost connection during COMMIT, made by the store's hook on the first
// batch only. The COMMIT did not land: the pipeline re-reads the record, finds
// that out, and runs the batch again — one effect per payment.
TEST_P(PipelineConformance, ConnectionLostDuringCommitEndsWithExactlyOneEffect) {
  Publish("P1", 10, "a");
  Publish("P2", 20, "b");
  auto consumer = Connect();
  ASSERT_NE(consumer, nullptr);
  auto p = MakePipeline(queue_.get(), consumer.get());
  std::function<void()> check_after = GetParam().lose_connection_during_commit(location_, *consumer, *p);
  EXPECT_EQ(p->counters().commit_failures, 1);
  Drain(*p);
  EXPECT_EQ(p->counters().commit_failures, 1);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM effects"), 2);
  EXPECT_EQ(Sql("SELECT balance FROM accounts WHERE owner = 'u1'"), 1000000 - 30);
  EXPECT_EQ(p->counters().first, 2);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM idem_records WHERE status = 'SUCCEEDED' AND attempts = 1"), 2);
  if (check_after) check_after();
}


// Counts the batch transactions and their COMMITs.
class CountingCommits final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  int begins = 0, commits = 0;

 private:
  class Tx final : public ForwardingTx {
   public:
    Tx(std::unique_ptr<StoreTx> inner, int* commits) : ForwardingTx(std::move(inner)), commits_(commits) {}
    Status Commit() override {
      ++*commits_;
      return inner_->Commit();
    }

   private:
    int* commits_;
  };
  std::unique_ptr<StoreTx> Wrap(std::unique_ptr<StoreTx> tx) override {
    ++begins;
    return std::make_unique<Tx>(std::move(tx), &commits);
  }
};

// A batch's first run has no savepoint per message. A statement error (which
// aborts the whole transaction on PostgreSQL) and a throw after an effect, in
// the middle of a batch, roll that run back; the batch runs again with a
// savepoint per message, and only those two messages fail.
TEST_P(PipelineConformance, AStatementErrorAndAThrowMidBatchFailAloneInOneCommit) {
  HandlerSpec spec = PayHandler();
  spec.fn = [inner = spec.fn](HandlerContext& ctx) {
    if (ctx.payload.Text("payment_id") == "BAD") {
      auto r = ctx.tx.Exec("INSERT INTO no_such_table (x) VALUES (?)", {int64_t{1}});
      if (!r.ok()) return HandlerResult::Permanent("no table: " + r.status().ToString());
    }
    return inner(ctx);
  };
  Publish("A", 1, "a");
  Publish("BAD", 2, "bad");
  Publish("B", 3, "b");
  Message thrower;
  thrower.id = "t";
  thrower.topic = "pay";
  thrower.payload = R"({"payment_id":"T","amount":4,"fail":"throw"})";
  ASSERT_TRUE(queue_->Publish(thrower).ok());
  Publish("C", 5, "c");
  CountingCommits store(store_.get());
  Pipeline p(queue_.get(), &store, Env::Default(), Options());
  ASSERT_TRUE(p.Register(std::move(spec)).ok());
  BatchReport r = p.RunOnce();
  EXPECT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.first, 3u);
  EXPECT_EQ(r.parked, 1u);
  EXPECT_EQ(r.retried, 1u);
  EXPECT_EQ(r.careful_reruns, 1u);
  EXPECT_EQ(r.transaction_retries, 0u);
  EXPECT_EQ(store.begins, 2) << "the optimistic run and one careful rerun";
  EXPECT_EQ(store.commits, 1);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM effects"), 3);
  EXPECT_EQ(Sql("SELECT balance FROM accounts WHERE owner = 'u1'"), 1000000 - 9);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM idem_records WHERE status = 'SUCCEEDED' AND attempts = 1"), 3);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM idem_records WHERE status = 'FAILED' AND attempts = 1"), 1);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM idem_records WHERE status = 'RELEASED' AND attempts = 1"), 1);
  auto stats = queue_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->dead, 1);
}

}  // namespace
}  // namespace idem::testing
