// Reconciliation on PostgreSQL: the payments ledger after the double charge is
// repaired once, and a second run that overlaps the first (it scanned before
// the first committed) waits on the account's lock and reverses nothing again.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "ops/reconcile/ledger_toml.h"
#include "ops/reconcile/reconcile.h"
#include "postgres/pg_test_support.h"
#include "testing/incident_ledger.h"
#include "testing/reconcile_days.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

using namespace idem::reconcile;

LedgerSpec IncidentSpec() {
  auto file = ParseLedgerToml(IncidentLedgerToml(""), "test.toml");
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_TRUE(Validate(file->spec).ok());
  return file->spec;
}

Result<ReconcileResult> RunReconcile(Store& store, const LedgerSpec& spec, bool apply,
                                     const std::vector<StatementRow>* statement = nullptr) {
  ReconcileOptions o;
  o.apply = apply;
  o.statement = statement;
  o.actor = {"alice", "operator secret", "", 1'800'000'000'000};
  return Reconcile(store, spec, o);
}

// A fresh schema holding the tables `ddl` creates; null after a test failure.
std::unique_ptr<Store> StoreWith(const std::string& ddl) {
  auto store = OpenPgStoreOrFail(FreshSchemaUrl());
  if (store && !store->ExecScript(ddl).ok()) {
    ADD_FAILURE() << "cannot create the test tables";
    return nullptr;
  }
  return store;
}

LedgerSpec Spec(const std::string& table, const std::string& key, const std::string& amount,
                const std::string& account) {
  LedgerSpec spec;
  spec.table = table;
  spec.key_columns = {key};
  spec.amount_column = amount;
  spec.account_column = account;
  return spec;
}

int64_t Balance(Store& store, const std::string& user) {
  return QueryInt(store, "SELECT balance_cents FROM pay_accounts WHERE user_id = '" + user + "'");
}

TEST(PgReconcileTest, TheDoubleChargeIsFoundReversedOnceAndTheBalanceRestored) {
  if (PostgresTestUrl().empty()) GTEST_SKIP() << kNoPostgres;
  auto store = OpenPgStoreOrFail(FreshSchemaUrl());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(SeedIncidentLedger(*store).ok());
  const LedgerSpec spec = IncidentSpec();
  auto statement = ParseStatementCsv(IncidentStatementCsv(), 2);
  ASSERT_TRUE(statement.ok());

  auto dry = RunReconcile(*store, spec, false, &*statement);
  ASSERT_TRUE(dry.ok()) << dry.status().ToString();
  ASSERT_EQ(dry->findings.duplicates.size(), 1u);
  EXPECT_EQ(dry->findings.mismatches.size(), 3u);
  EXPECT_EQ(ExitCodeFor(*dry), kExitNeedsAttention);
  EXPECT_EQ(QueryInt(*store, "SELECT COUNT(*) FROM pay_account_flows"), kIncidentFlows);

  auto applied = RunReconcile(*store, spec, true);
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_EQ(applied->reversed_now, 1);
  EXPECT_EQ(ExitCodeFor(*applied), kExitRepaired);
  EXPECT_EQ(Balance(*store, "10086"), kRestoredBalance10086);
  EXPECT_EQ(QueryInt(*store, "SELECT COUNT(*) FROM pay_account_flows WHERE biz_no = 'P20260928001'"), 2);
  EXPECT_EQ(QueryInt(*store,
                     "SELECT amount_cents FROM pay_account_flows WHERE biz_no = 'P20260928001:reversal:2' "
                     "AND type = 'PAY_DEDUCT' AND created_at_ms = 1800000000000"),
            19900);
  EXPECT_EQ(QueryInt(*store, "SELECT COUNT(*) FROM idem_reconcile_audit WHERE operator = 'alice'"), 1);

  // The statement's day only (10:00 to 10:10 +08:00): P20260928003 at 10:30 is not compared, nor is the
  // bank's row of 11:00 for P20260928004; P20260928002's amount still differs.
  ReconcileOptions day;
  day.statement = &*statement;
  day.statement_period = {1'790'560'800'000, 1'790'561'400'000};
  auto daily = Reconcile(*store, spec, day);
  ASSERT_TRUE(daily.ok()) << daily.status().ToString();
  ASSERT_EQ(daily->findings.mismatches.size(), 1u);
  EXPECT_EQ(daily->findings.mismatches[0].key, "P20260928002");
  EXPECT_EQ(daily->findings.rows_not_covered, 1);
  EXPECT_EQ(daily->findings.reversals, 1);
  EXPECT_EQ(daily->findings.duplicates[0].extra[0].state, CopyState::kReversedBefore);

  auto again = RunReconcile(*store, spec, true);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->reversed_now, 0);
  EXPECT_EQ(ExitCodeFor(*again), kExitClean);
  EXPECT_EQ(Balance(*store, "10086"), kRestoredBalance10086);
  EXPECT_EQ(QueryInt(*store, "SELECT COUNT(*) FROM pay_account_flows"), kIncidentFlows + 1);
}

// Names that are keywords (user, type, order) work because every name is quoted.
TEST(PgReconcileTest, KeywordColumnNamesAreQuoted) {
  if (PostgresTestUrl().empty()) GTEST_SKIP() << kNoPostgres;
  auto store = StoreWith(
      "CREATE TABLE \"order\" (\"order\" VARCHAR(64) NOT NULL, \"user\" VARCHAR(64) NOT NULL, \"value\" BIGINT NOT "
      "NULL);"
      "INSERT INTO \"order\" VALUES ('P1', 'u1', -5), ('P1', 'u1', -5)");
  ASSERT_NE(store, nullptr);
  const LedgerSpec spec = Spec("order", "order", "value", "user");
  ASSERT_TRUE(Validate(spec).ok());
  auto r = RunReconcile(*store, spec, true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->reversed_now, 1);
  EXPECT_EQ(QueryInt(*store, "SELECT SUM(\"value\") FROM \"order\""), -5);
}

// NUMERIC amounts come back from PostgreSQL as doubles or whole numbers: the
// repair still reads and writes them exactly.
TEST(PgReconcileTest, ANumericLedgerIsReversedExactly) {
  if (PostgresTestUrl().empty()) GTEST_SKIP() << kNoPostgres;
  auto store = StoreWith(
      "CREATE TABLE t_account (user_id VARCHAR(64) PRIMARY KEY, balance NUMERIC(12,2) NOT NULL);"
      "CREATE TABLE t_account_flow (biz_no VARCHAR(64) NOT NULL, user_id VARCHAR(64) NOT NULL, amount NUMERIC(12,2) "
      "NOT NULL);"
      "INSERT INTO t_account VALUES ('10086', 552.10);"
      "INSERT INTO t_account_flow VALUES ('P20260928001', '10086', -199.10), ('P20260928001', '10086', -199.10), "
      "('P2', '10086', -5)");
  ASSERT_NE(store, nullptr);
  LedgerSpec spec = Spec("t_account_flow", "biz_no", "amount", "user_id");
  spec.balance_table = "t_account";
  spec.balance_key_column = "user_id";
  spec.balance_column = "balance";
  spec.amount_unit = AmountUnit::kMajor;
  ASSERT_TRUE(Validate(spec).ok());
  auto r = RunReconcile(*store, spec, true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->reversed_now, 1);
  EXPECT_EQ(r->findings.duplicates[0].amount, -19910);
  EXPECT_EQ(QueryInt(*store, "SELECT (balance * 100)::bigint FROM t_account"), 75120);
  EXPECT_EQ(QueryInt(*store,
                     "SELECT (amount * 100)::bigint FROM t_account_flow WHERE biz_no = "
                     "'P20260928001:reversal:2'"),
            19910);
}

// Run B scans, then another run (A, here by hand) reverses the copy and commits
// while B waits for the account's row lock. B must see A's reversal after the
// lock and write nothing, rather than a second reversal.
TEST(PgReconcileTest, AnOverlappingRunWaitsForTheAccountAndReversesNothingTwice) {
  if (PostgresTestUrl().empty()) GTEST_SKIP() << kNoPostgres;
  const std::string url = FreshSchemaUrl();
  auto store_a = OpenPgStoreOrFail(url);
  auto store_b = OpenPgStoreOrFail(url);
  ASSERT_NE(store_a, nullptr);
  ASSERT_NE(store_b, nullptr);
  ASSERT_TRUE(SeedIncidentLedger(*store_a).ok());
  const LedgerSpec spec = IncidentSpec();

  auto a = store_a->Begin();
  ASSERT_TRUE(a.ok());
  auto locked = (*a)->Query("SELECT balance_cents FROM pay_accounts WHERE user_id = '10086' FOR UPDATE", {});
  ASSERT_TRUE(locked.ok()) << locked.status().ToString();

  Result<ReconcileResult> b = Status::Permanent("not run");
  std::atomic<bool> b_done{false};
  std::thread run_b([&] {
    b = RunReconcile(*store_b, spec, true);
    b_done = true;
  });
  // Wait (on PostgreSQL's own view, not a timer) until B has scanned the
  // ledger and waits for the row A holds.
  const std::string waiting =
      "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%'";
  while (!b_done && MaintenanceInt(waiting) < 1) {
  }
  EXPECT_FALSE(b_done) << "B finished without waiting for the account's lock";
  ASSERT_TRUE((*a)->Exec("INSERT INTO pay_account_flows (biz_no, type, user_id, amount_cents, created_at_ms) VALUES "
                         "('P20260928001:reversal:2', 'PAY_DEDUCT', '10086', 19900, 1)",
                         {})
                  .ok());
  ASSERT_TRUE(
      (*a)->Exec("UPDATE pay_accounts SET balance_cents = balance_cents + 19900 WHERE user_id = '10086'", {}).ok());
  ASSERT_TRUE((*a)->Commit().ok());
  run_b.join();

  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->reversed_now, 0);
  EXPECT_EQ(b->findings.duplicates[0].extra[0].state, CopyState::kReversedBefore);
  EXPECT_EQ(Balance(*store_a, "10086"), kRestoredBalance10086);
  EXPECT_EQ(QueryInt(*store_a, "SELECT COUNT(*) FROM pay_account_flows WHERE biz_no LIKE '%:reversal:%'"), 1);
}

// The daily job over three days (testing/reconcile_days.h), as on SQLite and MariaDB.
TEST(PgReconcileTest, ThreeDailyRunsHoldWhatTheBankChargedAndReverseOnlyLedgerDoubles) {
  if (PostgresTestUrl().empty()) GTEST_SKIP() << kNoPostgres;
  const std::string url = FreshSchemaUrl();
  auto store = OpenPgStoreOrFail(url);
  ASSERT_NE(store, nullptr);
  RunThreeDaysOfReconciliation(*store, url, IDEM_CLI_PATH);
}

}  // namespace
}  // namespace idem::testing
