// Deadlocks and serialization failures are the database's way of making one
// transaction give way; they say nothing about the messages. The pipeline must
// rerun the batch transaction at once, without spending an attempt or sending
// anything to a retry delay, wherever the conflict surfaces: the claim, a
// handler's statement, the completion or the commit.
#include <gtest/gtest.h>

#include "core/pipeline_test_fixture.h"
#include "testing/forwarding_store.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using testing::Balance;
using testing::CountEffects;
using testing::PayHandler;

enum class Where { kClaim, kHandlerStatement, kWriteRecords, kCommit };

// The real store, whose transactions answer "deadlock" at one point for the
// first `times` transactions that reach it (the victim's work is not done).
class ConflictingStore final : public testing::ForwardingStore {
 public:
  ConflictingStore(Store* inner, Where where, int times) : ForwardingStore(inner), where_(where), left_(times) {}
  int injected() const { return injected_; }

 private:
  Status Strike(Where at) {
    if (at != where_ || left_ == 0) return Status::OK();
    --left_;
    ++injected_;
    return Status::TransactionConflict("test: deadlock detected [SQLSTATE 40P01]");
  }

  class Tx final : public testing::ForwardingTx {
   public:
    Tx(std::unique_ptr<StoreTx> inner, ConflictingStore* s) : ForwardingTx(std::move(inner)), s_(s) {}
    Result<int64_t> Exec(std::string_view sql, const std::vector<Value>& p) override {
      IDEM_RETURN_IF_ERROR(s_->Strike(Where::kHandlerStatement));
      return inner_->Exec(sql, p);
    }
    Result<std::vector<ClaimResult>> Claim(std::string_view g, std::span<const ClaimRequest> r, int64_t now,
                                           int64_t lease) override {
      IDEM_RETURN_IF_ERROR(s_->Strike(Where::kClaim));
      return inner_->Claim(g, r, now, lease);
    }
    Status WriteRecords(std::string_view g, std::span<const RecordWrite> w, int64_t now) override {
      IDEM_RETURN_IF_ERROR(s_->Strike(Where::kWriteRecords));
      return inner_->WriteRecords(g, w, now);
    }
    Status Commit() override {
      IDEM_RETURN_IF_ERROR(s_->Strike(Where::kCommit));
      return inner_->Commit();
    }

   private:
    ConflictingStore* s_;
  };
  std::unique_ptr<StoreTx> Wrap(std::unique_ptr<StoreTx> tx) override {
    return std::make_unique<Tx>(std::move(tx), this);
  }

  Where where_;
  int left_;
  int injected_ = 0;
};

class PipelineConflictTest : public PipelineFixture, public ::testing::WithParamInterface<Where> {
 protected:
  void SetUp() override {
    PipelineFixture::SetUp();
    for (const char* id : {"P1", "P2", "P3"}) Publish(std::string(R"({"payment_id":")") + id + R"(","amount":10})");
  }

  BatchReport RunOneBatch(Store* store) {
    auto p = Make({}, PayHandler(), store);
    BatchReport r = p->RunOnce();
    retries_ = p->counters().transaction_retries;
    return r;
  }

  int64_t retries_ = 0;
};

TEST_P(PipelineConflictTest, ADeadlockOnceIsRerunAtOnceWithoutSpendingAnAttempt) {
  ConflictingStore store(store_.get(), GetParam(), 1);
  const int64_t before = env_.NowMs();
  BatchReport r = RunOneBatch(&store);
  ASSERT_EQ(store.injected(), 1);
  EXPECT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.first, 3u);
  EXPECT_EQ(r.retried + r.released + r.parked, 0u) << "nothing was wrong with the messages";
  EXPECT_EQ(r.transaction_retries, 1u);
  EXPECT_EQ(retries_, 1);
  EXPECT_EQ(CountEffects(*store_), 3) << "each payment applied once, by the second run";
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 30);
  for (const char* key : {"pay:P1", "pay:P2", "pay:P3"}) EXPECT_EQ(ReadRecord(key).attempts, 1) << key;
  EXPECT_EQ(Stats().ready + Stats().delayed + Stats().in_flight + Stats().dead, 0) << "all acked, none delayed";
  ASSERT_EQ(decisions_.size(), 3u);
  EXPECT_EQ(decisions_[0].transaction_tries, 2);
  EXPECT_NE(DecisionToJson(decisions_[0]).find("\"tx_tries\":2"), std::string::npos);
  // The rerun waited a little (jitter through Env), never the 30 s retry delay.
  EXPECT_GE(env_.NowMs() - before, 10);
  EXPECT_LE(env_.NowMs() - before, 20);
}

TEST_P(PipelineConflictTest, APersistentDeadlockReleasesTheBatchWithoutSpendingAnAttempt) {
  ConflictingStore store(store_.get(), GetParam(), 1'000);
  BatchReport r = RunOneBatch(&store);
  EXPECT_EQ(store.injected(), 5) << "transaction_conflict_tries runs, then give up";
  EXPECT_TRUE(r.status.IsTransactionConflict()) << r.status.ToString();
  EXPECT_NE(r.status.message().find("still after 5 runs"), std::string::npos) << r.status.ToString();
  EXPECT_EQ(r.released, 3u);
  EXPECT_EQ(r.retried + r.first, 0u);
  EXPECT_EQ(retries_, 4);
  EXPECT_EQ(CountEffects(*store_), 0);
  auto rec = store_->ReadRecord("default", "pay:P1");
  ASSERT_TRUE(rec.ok());
  EXPECT_FALSE(rec->has_value()) << "the rolled-back claim left no record, so no attempt was spent";
  // Given back undecided (after the unavailable-database delay); the next run applies them.
  EXPECT_EQ(Stats().ready + Stats().delayed, 3);
  EXPECT_EQ(Stats().dead, 0);
  env_.Advance(10'000);
  decisions_.clear();
  BatchReport again = RunOneBatch(store_.get());
  EXPECT_EQ(again.first, 3u);
  EXPECT_EQ(ReadRecord("pay:P1").attempts, 1);
}

INSTANTIATE_TEST_SUITE_P(Everywhere, PipelineConflictTest,
                         ::testing::Values(Where::kClaim, Where::kHandlerStatement, Where::kWriteRecords,
                                           Where::kCommit),
                         [](const ::testing::TestParamInfo<Where>& i) {
                           switch (i.param) {
                             case Where::kClaim: return "Claim";
                             case Where::kHandlerStatement: return "HandlerStatement";
                             case Where::kWriteRecords: return "WriteRecords";
                             case Where::kCommit: return "Commit";
                           }
                           return "Unknown";
                         });

}  // namespace
}  // namespace idem
