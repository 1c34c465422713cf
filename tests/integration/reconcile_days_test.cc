// The three days of the daily reconciliation job (testing/reconcile_days.h) on SQLite.
#include <gtest/gtest.h>

#include "integration/run_idem.h"
#include "testing/reconcile_days.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

TEST(ReconcileDaysTest, ThreeDailyRunsOnSqliteHoldWhatTheBankChargedAndReverseOnlyLedgerDoubles) {
  TempDir dir;
  auto store = OpenSqliteStore(dir.File("pay.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  RunThreeDaysOfReconciliation(**store, "sqlite:" + dir.File("pay.db"), IDEM_CLI_PATH);
}

}  // namespace
}  // namespace idem::testing
