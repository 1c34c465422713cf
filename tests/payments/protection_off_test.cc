// The same invariant checks fail for the incident's consumer: the damage is
// real and the checks can see it.
#include <gtest/gtest.h>

#include "idem/store.h"
#include "invariants.h"
#include "demo/scenario_run.h"
#include "testing/test_util.h"

namespace idem::demo {
namespace {

RunReport RunOff(const Workload& w, const std::string& dir) {
  RunOptions o;
  o.protection = false;
  o.dir = dir;
  auto r = RunScenario(w, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : RunReport{};
}

TEST(ProtectionOff, IncidentChargesTheSamePaymentTwice) {
  idem::testing::TempDir dir;
  Workload w = MakeWorkload(Cause::kIncident, {7, 60});
  RunReport r = RunOff(w, dir.path());
  auto store = OpenSqliteStore(testing::StorePath(dir.path()), {}, Env::Default());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(idem::testing::QueryInt(**store, "SELECT COUNT(*) FROM pay_account_flows WHERE biz_no = 'P20260928001' "
                                             "AND type = 'PAY_DEDUCT'"),
            2);
  // 10086 opened with 1000.00 and paid 199.00 once; the naive consumer took it twice.
  EXPECT_EQ(idem::testing::QueryInt(**store, "SELECT balance_cents FROM pay_accounts WHERE user_id = '10086'"),
            100'000 - 2 * 19'900);
  ASSERT_EQ(r.incident_charge_times_ms.size(), 2u);
  EXPECT_EQ(r.incident_charge_times_ms[0], kIncidentMorningMs + 12'000) << "A: 10:00:01 + 11 s bank call";
  EXPECT_GT(r.incident_charge_times_ms[1], r.incident_charge_times_ms[0]);
  EXPECT_EQ(r.downstream.debits_charged, r.downstream.debit_calls) << "no key went to the bank, so it charged every call";

  testing::Violations v = testing::CheckInvariants(dir.path(), w);
  EXPECT_FALSE(v.ledger_duplicates.empty());
  EXPECT_FALSE(v.wrong_balance.empty());
}

TEST(ProtectionOff, EveryCauseBreaksSomeInvariant) {
  for (Cause c : {Cause::kProducerResend, Cause::kCrashBeforeAck, Cause::kVisibilityTimeout, Cause::kThrowAfterEffect,
                  Cause::kRebalance, Cause::kOutOfOrder}) {
    idem::testing::TempDir dir;
    Workload w = MakeWorkload(c, {5, 300});
    RunReport r = RunOff(w, dir.path());
    testing::Violations v = testing::CheckInvariants(dir.path(), w);
    EXPECT_FALSE(v.empty()) << InfoOf(c).id;
    EXPECT_GT(r.damage.double_charges, 0) << InfoOf(c).id << ":\n" << v.Summary();
    EXPECT_GE(static_cast<int64_t>(v.ledger_duplicates.size()), r.damage.double_charges) << InfoOf(c).id;
  }
}

TEST(ProtectionOff, OutOfOrderEventsRegressOrderStates) {
  idem::testing::TempDir dir;
  Workload w = MakeWorkload(Cause::kOutOfOrder, {5, 300});
  RunReport r = RunOff(w, dir.path());
  testing::Violations v = testing::CheckInvariants(dir.path(), w);
  EXPECT_FALSE(v.regressed.empty()) << "a late PAID moved orders back";
  EXPECT_GT(r.damage.regressed_states, 0);
}

}  // namespace
}  // namespace idem::demo
