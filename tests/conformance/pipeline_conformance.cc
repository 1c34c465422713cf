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

}  // namespace
}  // namespace idem::testing
