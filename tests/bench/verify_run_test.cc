// The exactly-once checks must fail when the database or the run says the
// effects were not exactly once — a bench that cannot fail proves nothing.
#include "harness/verify_run.h"

#include <gtest/gtest.h>

#include "harness/bench_seed.h"
#include "payments/schema.h"
#include "testing/test_util.h"

namespace idem::bench {
namespace {

bool FailedCheck(const RunResult& r, const std::string& what) {
  for (const std::string& f : r.check_failures)
    if (f.find(what) != std::string::npos) return true;
  return false;
}

class VerifyRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenStore("sqlite:" + dir_.File("verify.db"), Env::Default());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }
  testing::TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(VerifyRunTest, PassesOnAnUntouchedSeedWithNothingExpected) {
  SeedPlan plan;
  plan.new_orders = 5;
  plan.fresh_store = true;
  ASSERT_TRUE(SeedStore(*store_, plan).ok());
  RunFacts facts;  // no messages, nothing expected
  RunResult r;
  VerifyRun(*store_, facts, &r);
  EXPECT_TRUE(r.check_failures.empty()) << r.check_failures.front();
  EXPECT_FALSE(r.checks_passed.empty());
}

TEST_F(VerifyRunTest, MissingEffectsFail) {
  SeedPlan plan;
  plan.new_orders = 5;
  plan.fresh_store = true;
  ASSERT_TRUE(SeedStore(*store_, plan).ok());
  RunFacts facts;
  facts.messages = facts.unique = 3;
  facts.business_runs = facts.bank_debits = facts.decided_first = 3;
  facts.settled.acked = 3;
  RunResult r;
  VerifyRun(*store_, facts, &r);
  EXPECT_TRUE(FailedCheck(r, "ledger PAY_DEDUCT rows: found 0, expected 3"));
  EXPECT_TRUE(FailedCheck(r, "orders PAID"));
  EXPECT_TRUE(FailedCheck(r, "SUCCEEDED records"));
}

TEST_F(VerifyRunTest, ADoubleChargeFails) {
  // The incident's tables, without the ledger's UNIQUE (biz_no, type): only the checks can catch it.
  ASSERT_TRUE(payments::CreateSchema(*store_, payments::SchemaVariant::kIncident).ok());
  SeedPlan plan;
  plan.history = 2;  // two payments already applied
  plan.fresh_store = true;
  ASSERT_TRUE(SeedStore(*store_, plan).ok());
  const PaymentFacts f = FactsOf(0, KeyOrder::kSequential);
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  ASSERT_TRUE((*tx)->Exec("INSERT INTO pay_account_flows (biz_no, type, user_id, amount_cents, created_at_ms) "
                          "VALUES (?, 'PAY_DEDUCT', ?, ?, 0)",
                          {f.payment_id, f.user_id, -f.amount_cents})
                  .ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  RunFacts facts;
  facts.history = 2;
  facts.guarded = false;
  RunResult r;
  VerifyRun(*store_, facts, &r);
  EXPECT_TRUE(FailedCheck(r, "payments charged more than once: found 1, expected 0"));
  EXPECT_TRUE(FailedCheck(r, "ledger PAY_DEDUCT rows: found 3, expected 2"));
}

TEST_F(VerifyRunTest, AHandlerThatRanForACopyFails) {
  SeedPlan plan;
  plan.fresh_store = true;
  ASSERT_TRUE(SeedStore(*store_, plan).ok());
  RunFacts facts;
  facts.business_runs = 1;  // the business code ran although no payment was new
  RunResult r;
  VerifyRun(*store_, facts, &r);
  EXPECT_TRUE(FailedCheck(r, "payments handler runs: found 1, expected 0"));
}

}  // namespace
}  // namespace idem::bench
