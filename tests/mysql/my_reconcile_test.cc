// `idem reconcile` on MariaDB, as the daily job runs it: the payments ledger
// after the double charge (no unique keys, as the incident's tables had none),
// a dry run that changes nothing, then --apply: one reversal that restores the
// balance, an audit row naming the OS account that applied it, and nothing
// more on the next run.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <fstream>

#include "mysql/my_test_support.h"
#include "testing/incident_ledger.h"
#include "testing/reconcile_days.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

TEST(MyReconcileTest, ApplyReversesTheSecondChargeOnceAndTheNextRunIsClean) {
  if (MysqlTestUrl().empty()) GTEST_SKIP() << kNoMysql;
  const std::string url = FreshDatabaseUrl();
  auto store = OpenMyStoreOrFail(url);
  ASSERT_TRUE(store);
  ASSERT_TRUE(SeedIncidentLedger(*store).ok());
  TempDir dir;
  std::ofstream(dir.File("ledger.toml")) << IncidentLedgerToml(url);
  std::ofstream(dir.File("bank.csv")) << IncidentStatementCsv();
  auto reconcile = [&](std::vector<std::string> extra) {
    // No IDEM_OPERATOR: whoever runs the job is audited as their OS account.
    std::vector<std::string> argv{"/usr/bin/env", "-u", "IDEM_OPERATOR", IDEM_CLI_PATH,
                                  "reconcile",    "--ledger", dir.File("ledger.toml")};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunProcess(argv);
  };
  auto balance = [&](const std::string& user) {
    return QueryInt(*store, "SELECT balance_cents FROM pay_accounts WHERE user_id = '" + user + "'");
  };

  auto dry = reconcile({"--statement", dir.File("bank.csv")});
  EXPECT_EQ(dry.exit_code, 1) << dry.out << dry.err;
  EXPECT_NE(dry.out.find("P20260928001/PAY_DEDUCT  account 10086  -199.00 x2  (bank: 1 movement)"), std::string::npos)
      << dry.out;
  EXPECT_EQ(balance("10086"), kIncidentBalance10086) << "a dry run changes nothing";
  EXPECT_EQ(QueryInt(*store, "SELECT COUNT(*) FROM pay_account_flows"), kIncidentFlows);

  auto applied = reconcile({"--apply", "--reason", "incident 2026-09-28"});
  EXPECT_EQ(applied.exit_code, 3) << applied.out << applied.err;
  EXPECT_NE(applied.out.find("reversed now: P20260928001:reversal:2 (199.00)"), std::string::npos) << applied.out;
  EXPECT_EQ(balance("10086"), kRestoredBalance10086);
  EXPECT_EQ(balance("10010"), kIncidentBalance10010);
  EXPECT_EQ(QueryInt(*store, "SELECT COUNT(*) FROM pay_account_flows WHERE biz_no = 'P20260928001'"), 2)
      << "nothing is deleted";
  EXPECT_EQ(QueryInt(*store, "SELECT amount_cents FROM pay_account_flows WHERE biz_no = 'P20260928001:reversal:2'"),
            19900);
  const passwd* pw = getpwuid(geteuid());
  ASSERT_NE(pw, nullptr);
  EXPECT_EQ(QueryInt(*store, "SELECT COUNT(*) FROM idem_reconcile_audit WHERE operator = '" + std::string(pw->pw_name) +
                                 "' AND reason = 'incident 2026-09-28 [os account (uid " + std::to_string(geteuid()) +
                                 ")]' AND reversal_key = 'P20260928001:reversal:2' AND amount = 19900"),
            1);

  auto again = reconcile({"--apply"});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("reversed before: P20260928001:reversal:2"), std::string::npos) << again.out;
  EXPECT_EQ(balance("10086"), kRestoredBalance10086);
  EXPECT_EQ(QueryInt(*store, "SELECT COUNT(*) FROM pay_account_flows"), kIncidentFlows + 1);
  EXPECT_EQ(QueryInt(*store, "SELECT COUNT(*) FROM idem_reconcile_audit"), 1);
}

// The daily job over three days (testing/reconcile_days.h), as on SQLite and PostgreSQL.
TEST(MyReconcileTest, ThreeDailyRunsHoldWhatTheBankChargedAndReverseOnlyLedgerDoubles) {
  if (MysqlTestUrl().empty()) GTEST_SKIP() << kNoMysql;
  const std::string url = FreshDatabaseUrl();
  auto store = OpenMyStoreOrFail(url);
  ASSERT_TRUE(store);
  RunThreeDaysOfReconciliation(*store, url, IDEM_CLI_PATH);
}

}  // namespace
}  // namespace idem::testing
