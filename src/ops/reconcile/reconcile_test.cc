// Reconcile against a real SQLite store, seeded with the incident's double
// charge: found, reversed once, balance restored, nothing deleted, and a second
// run changes nothing.
#include "ops/reconcile/reconcile.h"

#include <gtest/gtest.h>

#include "testing/test_util.h"
#include "sim/sim_env.h"

namespace idem::reconcile {
namespace {

using idem::testing::QueryInt;

constexpr int64_t kOpening = 100'000;

class ReconcileSqliteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = OpenSqliteStore(":memory:", {}, &env_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
    ASSERT_TRUE(store_
                    ->ExecScript("CREATE TABLE pay_accounts (user_id VARCHAR(64) PRIMARY KEY, balance_cents BIGINT "
                                 "NOT NULL);"
                                 "CREATE TABLE pay_account_flows (biz_no VARCHAR(64) NOT NULL, type VARCHAR(16) NOT "
                                 "NULL, user_id VARCHAR(64) NOT NULL, amount_cents BIGINT NOT NULL, created_at_ms "
                                 "BIGINT NOT NULL, note TEXT)")
                    .ok());
    spec_.table = "pay_account_flows";
    spec_.key_columns = {"biz_no", "type"};
    spec_.amount_column = "amount_cents";
    spec_.account_column = "user_id";
    spec_.time_column = "created_at_ms";
    spec_.where = {{"type", "PAY_DEDUCT"}};
    spec_.copy_columns = {"note"};
    spec_.balance_table = "pay_accounts";
    spec_.balance_key_column = "user_id";
    spec_.balance_column = "balance_cents";
    ASSERT_TRUE(Validate(spec_).ok());
  }

  void Exec(const std::string& sql, const std::vector<Value>& params = {}) {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    auto r = (*tx)->Exec(sql, params);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE((*tx)->Commit().ok());
  }

  // An account charged `times` times for one payment (the incident: twice).
  void SeedCharge(const std::string& user, const std::string& payment, int64_t cents, int times) {
    Exec("INSERT OR IGNORE INTO pay_accounts (user_id, balance_cents) VALUES (?, ?)", {user, kOpening});
    for (int i = 0; i < times; ++i) {
      Exec("INSERT INTO pay_account_flows VALUES (?, 'PAY_DEDUCT', ?, ?, ?, 'card')",
           {payment, user, -cents, int64_t{1'790'560'812'000} + i * 17'000});
      Exec("UPDATE pay_accounts SET balance_cents = balance_cents - ? WHERE user_id = ?", {cents, user});
    }
  }

  Result<ReconcileResult> Run(bool apply) {
    ReconcileOptions o;
    o.apply = apply;
    o.actor = {"alice", "operator secret", "", env_.NowMs()};
    return Reconcile(*store_, spec_, o);
  }

  int64_t Balance(const std::string& user) {
    return QueryInt(*store_, "SELECT balance_cents FROM pay_accounts WHERE user_id = '" + user + "'");
  }
  int64_t Flows() { return QueryInt(*store_, "SELECT COUNT(*) FROM pay_account_flows"); }

  sim::SimEnv env_{/*seed=*/42, /*start_ms=*/1'700'000'000'000};
  std::unique_ptr<Store> store_;
  LedgerSpec spec_;
};

TEST_F(ReconcileSqliteTest, ADryRunFindsTheDoubleChargeAndWritesNothing) {
  SeedCharge("10086", "P20260928001", 19900, 2);
  auto r = Run(false);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->findings.duplicates.size(), 1u);
  EXPECT_EQ(r->findings.duplicates[0].extra[0].state, CopyState::kOpen);
  EXPECT_FALSE(r->applied);
  EXPECT_EQ(ExitCodeFor(*r), kExitNeedsAttention);
  EXPECT_EQ(Flows(), 2);
  EXPECT_EQ(Balance("10086"), kOpening - 2 * 19900);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'idem_reconcile_audit'"), 0);
}

TEST_F(ReconcileSqliteTest, ApplyReversesTheSecondChargeOnceRestoresTheBalanceAndAudits) {
  SeedCharge("10086", "P20260928001", 19900, 2);
  SeedCharge("10010", "P20260928002", 500, 1);
  auto r = Run(true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->applied);
  EXPECT_EQ(r->reversed_now, 1);
  EXPECT_EQ(ExitCodeFor(*r), kExitRepaired);
  EXPECT_EQ(Balance("10086"), kOpening - 19900);
  EXPECT_EQ(Balance("10010"), kOpening - 500);
  // Nothing deleted or changed: both charges are still there, plus one reversal.
  EXPECT_EQ(QueryInt(*store_,
                     "SELECT COUNT(*) FROM pay_account_flows WHERE biz_no = 'P20260928001' AND "
                     "amount_cents = -19900"),
            2);
  EXPECT_EQ(QueryInt(*store_,
                     "SELECT COUNT(*) FROM pay_account_flows WHERE biz_no = 'P20260928001:reversal:2' AND "
                     "type = 'PAY_DEDUCT' AND user_id = '10086' AND amount_cents = 19900 AND note = 'card' "
                     "AND created_at_ms = " +
                         std::to_string(env_.NowMs())),
            1);
  EXPECT_EQ(Flows(), 4);
  EXPECT_EQ(QueryInt(*store_,
                     "SELECT COUNT(*) FROM idem_reconcile_audit WHERE operator = 'alice' AND action = "
                     "'reverse_duplicate' AND business_key = 'P20260928001/PAY_DEDUCT' AND reversal_key = "
                     "'P20260928001:reversal:2' AND account = '10086' AND amount = 19900 AND reason = "
                     "'duplicate application of P20260928001/PAY_DEDUCT [operator secret]' AND at_ms = " +
                         std::to_string(env_.NowMs())),
            1);

  // The daily job runs again: the reversal is found, nothing is written twice.
  env_.Advance(86'400'000);
  auto again = Run(true);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->reversed_now, 0);
  EXPECT_EQ(again->findings.duplicates[0].extra[0].state, CopyState::kReversedBefore);
  EXPECT_EQ(ExitCodeFor(*again), kExitClean);
  EXPECT_EQ(Balance("10086"), kOpening - 19900);
  EXPECT_EQ(Flows(), 4);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_reconcile_audit"), 1);
}

TEST_F(ReconcileSqliteTest, ATripleChargeGetsTwoReversals) {
  SeedCharge("10086", "P1", 1000, 3);
  auto r = Run(true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->reversed_now, 2);
  EXPECT_EQ(Balance("10086"), kOpening - 1000);
  EXPECT_EQ(QueryInt(*store_,
                     "SELECT COUNT(*) FROM pay_account_flows WHERE biz_no IN ('P1:reversal:2', "
                     "'P1:reversal:3')"),
            2);
}

// All or nothing: one account that cannot be restored leaves every ledger,
// balance and audit row as it was.
TEST_F(ReconcileSqliteTest, AnAccountWithoutABalanceRowRollsBackTheWholeRun) {
  SeedCharge("10086", "P1", 1000, 2);
  Exec("INSERT INTO pay_account_flows VALUES ('P2', 'PAY_DEDUCT', 'ghost', -7, 1, NULL)");
  Exec("INSERT INTO pay_account_flows VALUES ('P2', 'PAY_DEDUCT', 'ghost', -7, 2, NULL)");
  auto r = Run(true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("account ghost has no row in pay_accounts"), std::string::npos)
      << r.status().message();
  EXPECT_EQ(Flows(), 4);
  EXPECT_EQ(Balance("10086"), kOpening - 2000);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_reconcile_audit"), 0);
}

// The audit table's unique reversal key is the last guard: a reversal already
// audited (another run committed it) is never written a second time.
TEST_F(ReconcileSqliteTest, AReversalAlreadyAuditedIsNotWrittenAgain) {
  SeedCharge("10086", "P1", 1000, 2);
  ASSERT_TRUE(Run(false).ok());
  ASSERT_TRUE(store_
                  ->ExecScript("CREATE TABLE idem_reconcile_audit (at_ms BIGINT NOT NULL, operator VARCHAR(128) NOT "
                               "NULL, action VARCHAR(32) NOT NULL, ledger_table VARCHAR(64) NOT NULL, business_key "
                               "VARCHAR(600) NOT NULL, reversal_key VARCHAR(600) NOT NULL, account VARCHAR(128) NOT "
                               "NULL, amount BIGINT NOT NULL, reason TEXT NOT NULL, CONSTRAINT "
                               "idem_reconcile_audit_once UNIQUE (ledger_table, reversal_key));"
                               "INSERT INTO idem_reconcile_audit VALUES (1, 'bob', 'reverse_duplicate', "
                               "'pay_account_flows', 'P1/PAY_DEDUCT', 'P1:reversal:2', '10086', 1000, 'x')")
                  .ok());
  auto r = Run(true);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsTransactionConflict()) << r.status().ToString();
  EXPECT_EQ(Flows(), 2);
  EXPECT_EQ(Balance("10086"), kOpening - 2000);
}

TEST_F(ReconcileSqliteTest, WithoutABalanceOnlyTheReversalIsWritten) {
  SeedCharge("10086", "P1", 1000, 2);
  spec_.balance_table = spec_.balance_key_column = spec_.balance_column = "";
  auto r = Run(true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->reversed_now, 1);
  EXPECT_EQ(Balance("10086"), kOpening - 2000);
  EXPECT_EQ(Flows(), 3);
}

TEST_F(ReconcileSqliteTest, AWrongTableNameIsAnErrorThatSaysWhatToCheck) {
  spec_.table = "pay_flows";
  auto r = Run(false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot read the ledger pay_flows"), std::string::npos) << r.status().message();
}

// A daily run reads the repeated keys, the reversals and the statement's day,
// and finds the same as a full read would: a double charge across midnight,
// today's mismatch, and nothing about an older single payment.
TEST_F(ReconcileSqliteTest, WithAPeriodTheRunStillSeesEveryCopyOfARepeatedKey) {
  const int64_t day = 1'790'553'600'000;  // 2026-09-28T00:00:00Z
  Exec("INSERT INTO pay_accounts VALUES ('u', 0)");
  auto flow = [&](const std::string& biz_no, int64_t cents, int64_t at) {
    Exec("INSERT INTO pay_account_flows VALUES (?, 'PAY_DEDUCT', 'u', ?, ?, NULL)", {biz_no, -cents, at});
  };
  flow("OLD", 100, day - 86'400'000);  // yesterday, single: not on today's statement, not a finding
  flow("P1", 199, day - 5'000);        // charged just before midnight…
  flow("P1", 199, day + 12'000);       // …and again just after
  flow("P2", 50, day + 60'000);        // today, the bank says 55
  flow("P3", 10, day + 70'000);        // today, matches
  const std::vector<StatementRow> bank = {{"P2", 55, "", 1}, {"P3", 10, "", 2}};
  ReconcileOptions o;
  o.statement = &bank;
  o.statement_period = {day, day + 86'400'000};
  o.actor = {"alice", "operator secret", "", env_.NowMs()};
  spec_.bank_sign = BankSign::kOpposite;
  auto r = Reconcile(*store_, spec_, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->findings.entries, 5);
  ASSERT_EQ(r->findings.duplicates.size(), 1u);
  EXPECT_EQ(r->findings.duplicates[0].times_ms, (std::vector<int64_t>{day - 5'000, day + 12'000}));
  ASSERT_EQ(r->findings.mismatches.size(), 1u);
  EXPECT_EQ(r->findings.mismatches[0].key, "P2");

  o.apply = true;
  ASSERT_TRUE(Reconcile(*store_, spec_, o).ok());
  o.apply = false;
  auto after = Reconcile(*store_, spec_, o);  // the reversal (stamped now, outside the day) is still found
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->findings.reversals, 1);
  EXPECT_EQ(after->findings.duplicates[0].extra[0].state, CopyState::kReversedBefore);
  EXPECT_EQ(after->findings.entries, 6);
}

// The repair procedure's own ledger kept decimals (amount -199.00): the same
// repair, with the reversal and the balance written as decimals.
TEST_F(ReconcileSqliteTest, ADecimalLedgerIsReversedInDecimals) {
  ASSERT_TRUE(store_
                  ->ExecScript("CREATE TABLE t_account (user_id VARCHAR(64) PRIMARY KEY, balance DECIMAL(12,2) NOT "
                               "NULL);"
                               "CREATE TABLE t_account_flow (biz_no VARCHAR(64) NOT NULL, type VARCHAR(16) NOT NULL, "
                               "user_id VARCHAR(64) NOT NULL, amount DECIMAL(12,2) NOT NULL);"
                               "INSERT INTO t_account VALUES ('10086', 552.50);"
                               "INSERT INTO t_account_flow VALUES ('P20260928001', 'PAY_DEDUCT', '10086', -199.25), "
                               "('P20260928001', 'PAY_DEDUCT', '10086', -199.25)")
                  .ok());
  spec_.table = "t_account_flow";
  spec_.amount_column = "amount";
  spec_.time_column = "";
  spec_.copy_columns = {};
  spec_.balance_table = "t_account";
  spec_.balance_column = "balance";
  spec_.amount_unit = AmountUnit::kMajor;
  auto r = Run(true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->findings.duplicates.size(), 1u);
  EXPECT_EQ(r->findings.duplicates[0].amount, -19925);
  EXPECT_EQ(r->reversed_now, 1);
  EXPECT_EQ(QueryInt(*store_, "SELECT balance * 100 FROM t_account WHERE user_id = '10086'"), 75175);
  EXPECT_EQ(QueryInt(*store_, "SELECT amount * 100 FROM t_account_flow WHERE biz_no = 'P20260928001:reversal:2'"),
            19925);
  EXPECT_EQ(QueryInt(*store_, "SELECT amount FROM idem_reconcile_audit"), 19925);  // the audit keeps minor units

  spec_.amount_unit = AmountUnit::kMinor;
  auto minor = Run(false);
  ASSERT_FALSE(minor.ok());
  EXPECT_NE(minor.status().message().find("amount_unit = \"major\""), std::string::npos) << minor.status().message();
}

}  // namespace
}  // namespace idem::reconcile
