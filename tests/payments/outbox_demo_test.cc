// `idem demo` on the embedded queue runs the idem side with pay.success on the
// outbox: the run relays and applies the points grants and notices before it is
// measured, so every expected effect is there, and the incident's charge
// commits on its first attempt (its throwing notice is retried on its own).
#include <gtest/gtest.h>

#include "demo/scenario_run.h"
#include "idem/store.h"
#include "invariants.h"
#include "testing/test_util.h"

namespace idem::demo {
namespace {

using idem::testing::QueryInt;

TEST(OutboxDemoTest, TheIdemRunAppliesEveryGrantAndNoticeThroughTheOutboxBeforeItIsMeasured) {
  idem::testing::TempDir dir;
  Workload w = MakeWorkload(Cause::kIncident, {7, 60});
  RunOptions o;
  o.dir = dir.path();
  auto r = RunScenario(w, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->downstream_via_outbox);
  EXPECT_TRUE(r->damage.Clean());
  EXPECT_EQ(r->damage.effects_applied, r->damage.effects_expected);

  auto store = OpenSqliteStore(testing::StorePath(dir.path()), {}, Env::Default());
  ASSERT_TRUE(store.ok());
  const int64_t paid = QueryInt(**store, "SELECT COUNT(*) FROM pay_account_flows WHERE type = 'PAY_DEDUCT'");
  ASSERT_GT(paid, 0);
  EXPECT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM idem_outbox WHERE state = 'SENT'"), 2 * paid)
      << "a points grant and a notice per payment";
  EXPECT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM idem_outbox WHERE state <> 'SENT'"), 0);
  EXPECT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM pay_points WHERE scene = 'PAY'"), paid);
  EXPECT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM pay_notifications WHERE kind = 'PAY_SUCCESS'"), paid);
  EXPECT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM idem_records WHERE consumer_group = 'downstream' AND status = "
                              "'SUCCEEDED'"),
            2 * paid);
  ASSERT_EQ(r->incident_charge_times_ms.size(), 1u);
  EXPECT_EQ(r->incident_charge_times_ms[0], kIncidentMorningMs + 1'000)
      << "charged on the first attempt, at 10:00:01 when the handler started";
}

}  // namespace
}  // namespace idem::demo
