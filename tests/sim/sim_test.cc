// The simulator as a test: a fixed set of seeds must hold every invariant, the
// same seed must replay the same trace, the checkers must catch a disabled
// guard, and every fault must fire somewhere in the fixed set.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sim/ledger_workload.h"
#include "sim/outbox_chain_workload.h"
#include "sim/payments_workload.h"
#include "sim/simulation.h"
#include "describe_failure.h"
#include "testing/test_util.h"

namespace idem::sim {
namespace {

constexpr uint64_t kFixedSeeds = 300;

WorkloadFactory Ledger() {
  return [] { return std::make_unique<LedgerWorkload>(); };
}
WorkloadFactory Payments() {
  return [] { return std::make_unique<PaymentsWorkload>(); };
}
WorkloadFactory ByName(const std::string& name) {
  if (name == "chain") return [] { return std::make_unique<ChainWorkload>(); };
  return name == "payments" ? Payments() : Ledger();
}

// The payments service (the real handlers) and the ledger workload (whose only
// defence is the guard) over the same fixed seeds.
class FixedSeeds : public ::testing::TestWithParam<std::string> {};

TEST_P(FixedSeeds, HoldEveryInvariantAndEveryFaultFires) {
  Coverage total;
  for (uint64_t seed = 1; seed <= kFixedSeeds; ++seed) {
    SimOptions o;
    o.seed = seed;
    SimResult r = RunSimulation(o, ByName(GetParam()));
    EXPECT_EQ(r.report.Total(), 0u) << Describe(r, o);
    EXPECT_TRUE(r.drained) << Describe(r, o);
    for (const char* checker : {"no_duplicate_effect", "nothing_lost", "balance_matches_flows", "legit_not_blocked",
                                "conflicts_detected"})
      EXPECT_TRUE(r.report.violations.count(checker)) << checker << " did not run";
    total.Add(r.coverage);
  }
  for (int f = 0; f < kFaultCount; ++f)
    EXPECT_GT(total.fired[f], 0) << FaultName(static_cast<Fault>(f)) << " never fired over " << kFixedSeeds << " seeds";
}

INSTANTIATE_TEST_SUITE_P(Workloads, FixedSeeds, ::testing::Values("payments", "ledger"));

TEST(SimTest, SavedRegressionSeedsStayFixed) {
  std::ifstream f(IDEM_SIM_SEEDS_FILE);
  ASSERT_TRUE(f) << "cannot read " << IDEM_SIM_SEEDS_FILE;
  int n = 0;
  for (std::string line; std::getline(f, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    SimOptions o;
    std::string workload;
    in >> o.seed >> o.events >> workload;
    ASSERT_TRUE(workload == "ledger" || workload == "payments" || workload == "chain") << line;
    SimResult r = RunSimulation(o, ByName(workload));
    EXPECT_EQ(r.report.Total(), 0u) << Describe(r, o);
    ++n;
  }
  EXPECT_GE(n, 1);
}

TEST(SimTest, SameSeedGivesTheSameTrace) {
  for (uint64_t seed : {3u, 17u, 99u}) {
    SimOptions o;
    o.seed = seed;
    o.keep_trace = true;
    SimResult a = RunSimulation(o, Payments());
    SimResult b = RunSimulation(o, Payments());
    EXPECT_EQ(a.digest, b.digest) << "seed " << seed;
    EXPECT_EQ(a.trace, b.trace) << "seed " << seed;
    EXPECT_GT(a.trace.size(), 100u);
    o.seed = seed + 1000;
    EXPECT_NE(RunSimulation(o, Payments()).digest, a.digest);
  }
}

TEST_P(FixedSeeds, WithTheGuardOffTheCheckersFindTheDamage) {
  int damaged = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SimOptions o;
    o.seed = seed;
    o.protection = false;
    SimResult r = RunSimulation(o, ByName(GetParam()));
    damaged += !r.report.violations["no_duplicate_effect"].empty();
  }
  EXPECT_GE(damaged, 15) << "duplicate effects must reach the database when the guard is off";
}

// Kafka with ordered retries keeps each account's events in order (the
// key_order checker); with retry topics the same checker sees events overtake.
TEST(SimTest, OrderedRetriesKeepEachKeysOrderAndRetryTopicsDoNot) {
  int overtaken = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SimOptions o;
    o.seed = seed;
    o.model = DeliveryModel::kKafka;
    o.ordered_retries = true;
    SimResult r = RunSimulation(o, Payments());
    EXPECT_EQ(r.report.Total(), 0u) << Describe(r, o);
    EXPECT_TRUE(r.ordered_retries);
    EXPECT_TRUE(r.report.violations.count("key_order")) << "key_order did not run";
    o.ordered_retries = false;
    o.check_key_order = true;
    overtaken += !RunSimulation(o, Payments()).report.violations["key_order"].empty();
  }
  EXPECT_GE(overtaken, 10) << "retry topics let a later event of a key overtake a retried one in only " << overtaken
                           << " of 20 seeds";
}

TEST(SimTest, CliExitsNonZeroWithProtectionOffAndZeroWithItOn) {
  auto off = testing::RunProcess({IDEM_CLI_PATH, "sim", "--seeds", "20", "--protection", "off"});
  EXPECT_EQ(off.exit_code, 1) << off.err;
  EXPECT_NE(off.out.find("replay: idem sim --seed"), std::string::npos) << off.out;
  auto on = testing::RunProcess({IDEM_CLI_PATH, "sim", "--seeds", "20"});
  EXPECT_EQ(on.exit_code, 0) << on.out << on.err;
  EXPECT_NE(on.out.find("no_duplicate_effect"), std::string::npos);
}

// A failing seed's replay must run the same workload, not the default one.
TEST(SimTest, ReplayCommandNamesTheWorkload) {
  auto off = testing::RunProcess(
      {IDEM_CLI_PATH, "sim", "--workload", "ledger", "--seeds", "3", "--events", "40", "--protection", "off"});
  EXPECT_EQ(off.exit_code, 1) << off.err;
  EXPECT_NE(off.out.find("replay: idem sim --seed 1 --events 40 --workload ledger --protection off"),
            std::string::npos)
      << off.out;
}

}  // namespace
}  // namespace idem::sim
