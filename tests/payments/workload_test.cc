// The seeded workload: the same seed gives the same workload and the same run;
// every cause of redelivery is really in the workload it names.
#include <gtest/gtest.h>

#include <set>

#include "payments/events.h"
#include "demo/scenario_run.h"
#include "testing/test_util.h"

namespace idem::demo {
namespace {

std::string Fingerprint(const Workload& w) {
  std::string out;
  for (const Publication& p : w.publications)
    out += p.message_id + "@" + std::to_string(p.at_ms) + ":" + w.events[p.event].topic + ":" +
           w.events[p.event].payload + "\n";
  for (const auto* set : {&w.faults.Strikes(Fault::kCrashAfterCommit), &w.faults.Strikes(Fault::kSlowHandler),
                          &w.faults.Strikes(Fault::kRebalance),
                          &w.faults.downstream.notice_throws_once})
    for (const std::string& s : *set) out += "fault " + s + "\n";
  for (const payments::AccountSeed& a : w.accounts) out += a.user_id + "=" + std::to_string(a.opening_cents) + "\n";
  return out;
}

TEST(Workload, TheSameSeedGivesTheSameWorkloadAndAnotherSeedAnother) {
  for (const ScenarioInfo& s : Scenarios()) {
    const std::string a = Fingerprint(MakeWorkload(s.cause, {42, 300}));
    EXPECT_EQ(a, Fingerprint(MakeWorkload(s.cause, {42, 300}))) << s.id;
    EXPECT_NE(a, Fingerprint(MakeWorkload(s.cause, {43, 300}))) << s.id;
  }
}

TEST(Workload, HasAtLeastTheRequestedBusinessEventsAndAConsistentOracle) {
  Workload w = MakeWorkload(Cause::kProducerResend, {9, 500});
  EXPECT_GE(w.events.size(), 500u);
  EXPECT_LT(w.events.size(), 510u);
  EXPECT_GT(w.publications.size(), w.events.size()) << "A1 adds resent copies";
  int64_t flows = 0, refused = 0;
  for (const BusinessEvent& e : w.events) {
    flows += e.effect == EffectKind::kLedger && !e.expect_parked;
    refused += e.expect_parked;
  }
  EXPECT_EQ(flows, w.expected.flows);
  EXPECT_GT(refused, 0) << "some illegal refunds must be in the workload";
  EXPECT_EQ(w.expected.state.size(), w.orders.size());
}

TEST(Workload, HoldsLegitimateRepeatPaymentsWithTheSameAmount) {
  Workload w = MakeWorkload(Cause::kIncident, {9, 500});
  std::set<std::string> seen;
  int repeats = 0;
  for (const payments::OrderSeed& o : w.orders)
    repeats += !seen.insert(o.user_id + "/" + o.sku + "/" + std::to_string(o.quantity)).second;
  EXPECT_GT(repeats, 0);
}

TEST(Workload, EachCauseCarriesItsFault) {
  const WorkloadOptions opt{5, 300};
  Workload incident = MakeWorkload(Cause::kIncident, opt);
  EXPECT_EQ(incident.incident_payment_id, "P20260928001");
  EXPECT_EQ(incident.consumers, 2u);
  EXPECT_EQ(incident.faults.downstream.slow_debit_ms.at("P20260928001"), 11'000);
  EXPECT_EQ(incident.publications.front().at_ms, 1'000) << "published at 10:00:01";

  Workload resend = MakeWorkload(Cause::kProducerResend, opt);
  std::map<size_t, std::set<std::string>> ids;
  int same_id = 0;
  for (const Publication& p : resend.publications) same_id += !ids[p.event].insert(p.message_id).second;
  int new_id = 0;
  for (const auto& [event, set] : ids) new_id += set.size() > 1;
  EXPECT_GT(same_id, 0);
  EXPECT_GT(new_id, 0);

  EXPECT_FALSE(MakeWorkload(Cause::kCrashBeforeAck, opt).faults.Strikes(Fault::kCrashAfterCommit).empty());
  Workload slow = MakeWorkload(Cause::kVisibilityTimeout, opt);
  EXPECT_FALSE(slow.faults.Strikes(Fault::kSlowHandler).empty());
  EXPECT_EQ(slow.consumers, 2u);
  EXPECT_FALSE(MakeWorkload(Cause::kThrowAfterEffect, opt).faults.downstream.notice_throws_once.empty());
  Workload rebalance = MakeWorkload(Cause::kRebalance, opt);
  EXPECT_FALSE(rebalance.faults.Strikes(Fault::kRebalance).empty());
  EXPECT_EQ(rebalance.consumers, 2u);

  // Out of order: some payment is published after its shipment, and some late copies exist.
  Workload ooo = MakeWorkload(Cause::kOutOfOrder, opt);
  std::map<std::string, int64_t> pay_at, ship_at;
  int late_copies = 0;
  for (const Publication& p : ooo.publications) {
    const BusinessEvent& e = ooo.events[p.event];
    if (e.topic == payments::kTopicShip) ship_at[e.key] = p.at_ms;
    if (e.topic == payments::kTopicPaySuccess && p.message_id.ends_with("-late")) late_copies++;
    else if (e.topic == payments::kTopicPaySuccess) pay_at[payments::ParsePaySuccess(e.payload)->order_no] = p.at_ms;
  }
  int paid_after_ship = 0;
  for (const auto& [order, at] : ship_at) paid_after_ship += pay_at.at(order) > at;
  EXPECT_GT(paid_after_ship, 0);
  EXPECT_GT(late_copies, 0);
}

TEST(Workload, TheSameSeedReplaysTheSameRun) {
  Workload w = MakeWorkload(Cause::kRebalance, {21, 120});
  RunReport runs[2];
  for (RunReport& r : runs) {
    idem::testing::TempDir dir;
    RunOptions o;
    o.dir = dir.path();
    auto got = RunScenario(w, o);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    r = *got;
  }
  EXPECT_EQ(runs[0].deliveries, runs[1].deliveries);
  EXPECT_EQ(runs[0].duplicate_deliveries, runs[1].duplicate_deliveries);
  EXPECT_EQ(runs[0].simulated_ms, runs[1].simulated_ms);
  EXPECT_EQ(runs[0].damage.effects_applied, runs[1].damage.effects_applied);
  EXPECT_EQ(runs[0].downstream.notice_calls, runs[1].downstream.notice_calls);
}

}  // namespace
}  // namespace idem::demo
