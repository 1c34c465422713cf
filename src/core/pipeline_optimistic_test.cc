// Optimistic batches: a batch's handlers run first with no savepoint per
// message; the first message that does not succeed rolls that run back, and
// the batch runs again with a savepoint per message. These tests count what
// the store was asked (transactions, savepoints, commits) and check that the
// outcomes are those of per-message isolation: only the failing message
// fails, its neighbours apply once, in one commit, with one attempt each.
#include <gtest/gtest.h>

#include <map>

#include "core/pipeline_test_fixture.h"
#include "testing/forwarding_store.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using testing::Balance;
using testing::CountEffects;
using testing::PayHandler;
using testing::QueryInt;

// The real store, counting what the pipeline asks of its transactions. In
// transaction number `lose_in` (1-based; 0: none) the connection is lost after
// its `lose_after`-th handler statement: every later call on that transaction
// fails as on a dropped connection.
class CountingStore final : public testing::ForwardingStore {
 public:
  explicit CountingStore(Store* inner) : ForwardingStore(inner) {}

  int begins = 0, savepoints = 0, commits = 0;
  int lose_in = 0, lose_after = 0;

 private:
  class Tx final : public testing::ForwardingTx {
   public:
    Tx(std::unique_ptr<StoreTx> inner, CountingStore* s, bool loses)
        : ForwardingTx(std::move(inner)), s_(s), loses_(loses) {}
    Result<int64_t> Exec(std::string_view sql, const std::vector<Value>& p) override {
      IDEM_RETURN_IF_ERROR(Alive());
      if (loses_ && ++statements_ > s_->lose_after) {
        lost_ = true;
        return Alive();
      }
      return inner_->Exec(sql, p);
    }
    Status Savepoint(std::string_view n) override {
      IDEM_RETURN_IF_ERROR(Alive());
      ++s_->savepoints;
      return inner_->Savepoint(n);
    }
    Status RollbackTo(std::string_view n) override {
      IDEM_RETURN_IF_ERROR(Alive());
      return inner_->RollbackTo(n);
    }
    Status Release(std::string_view n) override {
      IDEM_RETURN_IF_ERROR(Alive());
      return inner_->Release(n);
    }
    Status WriteRecords(std::string_view g, std::span<const RecordWrite> w, int64_t now) override {
      IDEM_RETURN_IF_ERROR(Alive());
      return inner_->WriteRecords(g, w, now);
    }
    Status Commit() override {
      IDEM_RETURN_IF_ERROR(Alive());
      ++s_->commits;
      return inner_->Commit();
    }

   private:
    Status Alive() const {
      return lost_ ? Status::Unavailable("test: server closed the connection unexpectedly") : Status::OK();
    }
    CountingStore* s_;
    bool loses_;
    bool lost_ = false;
    int statements_ = 0;
  };
  std::unique_ptr<StoreTx> Wrap(std::unique_ptr<StoreTx> tx) override {
    ++begins;
    return std::make_unique<Tx>(std::move(tx), this, begins == lose_in);
  }
};

class PipelineOptimisticTest : public PipelineFixture {
 protected:
  // PayHandler, counting its runs per payment id.
  HandlerSpec CountedPay() {
    HandlerSpec spec = PayHandler();
    spec.fn = [inner = spec.fn, this](HandlerContext& ctx) {
      ++runs_[ctx.payload.Text("payment_id").value_or("")];
      return inner(ctx);
    };
    return spec;
  }

  void PublishPayments(std::initializer_list<const char*> ids, int amount = 10) {
    for (const char* id : ids)
      Publish(std::string(R"({"payment_id":")") + id + R"(","amount":)" + std::to_string(amount) + "}");
  }

  std::map<std::string, int> runs_;
};

TEST_F(PipelineOptimisticTest, ACleanBatchRunsNoSavepointAndOneTransaction) {
  CountingStore store(store_.get());
  PublishPayments({"A", "B", "C", "D"});
  auto p = Make({}, CountedPay(), &store);
  BatchReport r = p->RunOnce();
  EXPECT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.first, 4u);
  EXPECT_EQ(store.savepoints, 0) << "the common case pays no isolation";
  EXPECT_EQ(store.begins, 1);
  EXPECT_EQ(store.commits, 1);
  EXPECT_EQ(r.careful_reruns, 0u);
  EXPECT_EQ(p->counters().careful_reruns, 0);
  EXPECT_EQ(CountEffects(*store_), 4);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 40);
  for (const char* key : {"pay:A", "pay:B", "pay:C", "pay:D"}) EXPECT_EQ(ReadRecord(key).attempts, 1) << key;
}

TEST_F(PipelineOptimisticTest, APoisonMessageFailsAloneAfterExactlyOneCarefulRerun) {
  CountingStore store(store_.get());
  Publish(R"({"payment_id":"A","amount":1})");
  Publish(R"({"payment_id":"B","amount":2})");
  Publish(R"({"payment_id":"P","amount":50,"fail":"permanent"})");
  Publish(R"({"payment_id":"C","amount":3})");
  auto p = Make({}, CountedPay(), &store);
  BatchReport r = p->RunOnce();
  EXPECT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.first, 3u);
  EXPECT_EQ(r.parked, 1u) << "only the poison message fails";
  EXPECT_EQ(r.careful_reruns, 1u);
  EXPECT_EQ(r.transaction_retries, 0u) << "a failing message is not a transaction conflict";
  EXPECT_EQ(p->counters().careful_reruns, 1);
  EXPECT_EQ(store.begins, 2) << "the optimistic run, then exactly one careful rerun";
  EXPECT_EQ(store.commits, 1) << "the batch's outcomes commit together";
  EXPECT_EQ(store.savepoints, 4) << "the careful rerun: one savepoint per message";
  // The messages before the poison ran in the rolled-back run and again; the
  // poison's failure is taken as found and C never ran optimistically.
  EXPECT_EQ(runs_["A"], 2);
  EXPECT_EQ(runs_["P"], 1) << "a failing handler runs no more often than with savepoints alone";
  EXPECT_EQ(runs_["C"], 1);
  EXPECT_EQ(CountEffects(*store_), 3);
  EXPECT_EQ(CountEffects(*store_, "pay:P"), 0) << "the poison's effect was rolled back";
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 6);
  EXPECT_EQ(ReadRecord("pay:P").status, RecordStatus::kFailed);
  EXPECT_EQ(ReadRecord("pay:P").attempts, 1) << "the rolled-back run spent no attempt";
  for (const char* key : {"pay:A", "pay:B", "pay:C"}) EXPECT_EQ(ReadRecord(key).attempts, 1) << key;
  EXPECT_EQ(Stats().dead, 1);
  EXPECT_EQ(Stats().ready + Stats().delayed + Stats().in_flight, 0) << "the good ones acked";
}

TEST_F(PipelineOptimisticTest, AThrowingHandlerMidBatchKeepsItsRetryAndItsNeighbours) {
  CountingStore store(store_.get());
  PublishPayments({"A"});
  Publish(R"({"payment_id":"T","amount":70,"fail":"throw"})");
  PublishPayments({"C"});
  auto p = Make({}, CountedPay(), &store);
  BatchReport r = p->RunOnce();
  EXPECT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.first, 2u);
  EXPECT_EQ(r.retried, 1u);
  EXPECT_EQ(r.careful_reruns, 1u);
  EXPECT_EQ(runs_["T"], 1);
  EXPECT_EQ(CountEffects(*store_, "pay:T"), 0) << "the effect made before the throw is gone";
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 20);
  EXPECT_EQ(ReadRecord("pay:T").attempts, 1);
  EXPECT_EQ(ReadRecord("pay:T").status, RecordStatus::kReleased);
  ASSERT_FALSE(decisions_.empty());
  bool found = false;
  for (const Decision& d : decisions_)
    found = found || (d.kind == DecisionKind::kRetry && d.reason.find("boom after the deduction") != std::string::npos);
  EXPECT_TRUE(found) << "the retry keeps the handler's reason";
}

TEST_F(PipelineOptimisticTest, InProcessRetriesGoOnFromTheOptimisticFailureWithTheirWait) {
  CountingStore store(store_.get());
  PipelineOptions o;
  o.retry.in_process_tries = 3;
  HandlerSpec spec = CountedPay();
  spec.fn = [inner = spec.fn, this](HandlerContext& ctx) -> HandlerResult {
    HandlerResult r = inner(ctx);
    if (ctx.payload.Text("payment_id") == "G" && runs_["G"] < 3) return HandlerResult::Retryable("glitch");
    return r;
  };
  PublishPayments({"A", "G", "C"});
  auto p = Make(o, spec, &store);
  const int64_t before = env_.NowMs();
  BatchReport r = p->RunOnce();
  EXPECT_EQ(r.first, 3u);
  EXPECT_EQ(runs_["G"], 3) << "tries 1 (optimistic), 2 and 3 (careful), as with savepoints alone";
  EXPECT_EQ(CountEffects(*store_, "pay:G"), 1) << "the glitching tries' writes were rolled back";
  EXPECT_EQ(ReadRecord("pay:G").attempts, 1);
  // in_process_backoff_ms (default 1 s) then twice that, through Env.
  EXPECT_GE(env_.NowMs() - before, 3000);
}

TEST_F(PipelineOptimisticTest, AStatementErrorTheHandlerShrugsOffIsIsolatedToo) {
  // A handler that ignores a failed statement and returns Ok: without a
  // savepoint the transaction may be unusable (PostgreSQL aborts it), so the
  // batch runs careful, where it ends as it always did.
  CountingStore store(store_.get());
  HandlerSpec spec = CountedPay();
  spec.fn = [inner = spec.fn](HandlerContext& ctx) {
    if (ctx.payload.Text("payment_id") == "S") (void)ctx.tx.Exec("INSERT INTO no_such_table VALUES (1)", {});
    return inner(ctx);
  };
  PublishPayments({"A", "S", "C"});
  auto p = Make({}, spec, &store);
  BatchReport r = p->RunOnce();
  EXPECT_EQ(r.careful_reruns, 1u);
  EXPECT_EQ(r.first, 3u) << "SQLite rolls back only the failed statement: with a savepoint S applied";
  EXPECT_EQ(CountEffects(*store_), 3);
  EXPECT_EQ(store.commits, 1);
}

TEST_F(PipelineOptimisticTest, AHandlersOwnSavepointUndoesTheFailureItCaught) {
  CountingStore store(store_.get());
  HandlerSpec spec = CountedPay();
  spec.fn = [inner = spec.fn](HandlerContext& ctx) {
    EXPECT_TRUE(ctx.tx.Savepoint("mine").ok());
    if (!ctx.tx.Exec("INSERT INTO no_such_table VALUES (1)", {}).ok()) EXPECT_TRUE(ctx.tx.RollbackTo("mine").ok());
    EXPECT_TRUE(ctx.tx.Release("mine").ok());
    return inner(ctx);
  };
  PublishPayments({"A", "B"});
  auto p = Make({}, spec, &store);
  BatchReport r = p->RunOnce();
  EXPECT_EQ(r.first, 2u);
  EXPECT_EQ(r.careful_reruns, 0u) << "the error was caught by the handler's own savepoint";
  EXPECT_EQ(store.begins, 1);
  EXPECT_EQ(store.savepoints, 2) << "only the handler's own";
}

TEST_F(PipelineOptimisticTest, APoisonStreamRunsCarefulFirstUntilABatchIsClean) {
  CountingStore store(store_.get());
  PipelineOptions o;
  o.batch_size = 3;
  auto p = Make(o, CountedPay(), &store);
  auto poisoned_batch = [&](const std::string& n) {
    PublishPayments({("A" + n).c_str(), ("B" + n).c_str()});
    Publish(R"({"payment_id":"P)" + n + R"(","amount":5,"fail":"permanent"})");
    return p->RunOnce();
  };
  EXPECT_EQ(poisoned_batch("1").careful_reruns, 1u);
  EXPECT_EQ(store.begins, 2);
  // The last batch's careful run met a failure again: the next starts careful.
  BatchReport second = poisoned_batch("2");
  EXPECT_EQ(second.careful_reruns, 0u);
  EXPECT_EQ(second.parked, 1u);
  EXPECT_EQ(store.begins, 3) << "a poison stream does not run every batch twice";
  // A careful batch with no failure turns the optimistic run back on.
  PublishPayments({"C1", "C2", "C3"});
  EXPECT_EQ(p->RunOnce().first, 3u);
  const int savepoints = store.savepoints;
  PublishPayments({"D1", "D2", "D3"});
  EXPECT_EQ(p->RunOnce().first, 3u);
  EXPECT_EQ(store.savepoints, savepoints) << "optimistic again";
  EXPECT_EQ(p->counters().careful_reruns, 1);
  EXPECT_EQ(CountEffects(*store_), 10);
  EXPECT_EQ(Stats().dead, 2);
}

TEST_F(PipelineOptimisticTest, AnOutboxEmitOfTheFailingMessageGoesTheOthersStay) {
  CountingStore store(store_.get());
  HandlerSpec spec = CountedPay();
  spec.fn = [inner = spec.fn](HandlerContext& ctx) {
    const std::string id = ctx.payload.Text("payment_id").value_or("");
    if (Status s = ctx.Emit({"points.grant", "grant:" + id, R"({"payment_id":")" + id + "\"}", {}}); !s.ok())
      return HandlerResult::FromStatus(s, "emit");
    return inner(ctx);
  };
  PublishPayments({"A"});
  Publish(R"({"payment_id":"P","amount":5,"fail":"permanent"})");
  PublishPayments({"C"});
  auto p = Make({}, spec, &store);
  BatchReport r = p->RunOnce();
  EXPECT_EQ(r.careful_reruns, 1u);
  EXPECT_EQ(r.first, 2u);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_outbox"), 2) << "A's once, though A ran twice";
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_outbox WHERE msg_key = 'grant:P'"), 0);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_outbox WHERE msg_key IN ('grant:A', 'grant:C')"), 2);
}

TEST_F(PipelineOptimisticTest, AConnectionLostInAHandlerLosesNothingAndAppliesEachOnce) {
  // The first transaction's connection drops at the batch's second handler
  // statement; the careful rerun gets a new one.
  CountingStore store(store_.get());
  store.lose_in = 1;
  store.lose_after = 2;
  PublishPayments({"A", "B", "C"});
  auto p = Make({}, CountedPay(), &store);
  BatchReport first = p->RunOnce();
  Drain(*p);
  EXPECT_EQ(CountEffects(*store_), 3);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 30);
  for (const char* key : {"pay:A", "pay:B", "pay:C"}) {
    EXPECT_EQ(ReadRecord(key).attempts, 1) << key << ": the lost run spent no attempt";
    EXPECT_EQ(ReadRecord(key).status, RecordStatus::kSucceeded) << key;
  }
  EXPECT_EQ(first.careful_reruns, 1u);
  EXPECT_EQ(first.first, 3u);
  EXPECT_EQ(Stats().ready + Stats().delayed + Stats().in_flight + Stats().dead, 0);
}

}  // namespace
}  // namespace idem
