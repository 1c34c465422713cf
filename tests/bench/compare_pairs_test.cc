// The compare runs of a store: planned as alternated idem/ceiling pairs with
// naive once, and summarised from the medians of those pairs, not from
// whichever run came first.
#include <gtest/gtest.h>

#include <set>

#include "harness/bench_plan.h"
#include "harness/bench_runner.h"

namespace idem::bench {
namespace {

TEST(ComparePairs, ThePlanAlternatesIdemAndCeilingThenRunsNaiveOnce) {
  BenchOptions o;
  o.compare_pairs = 3;
  o.ApplyModeDefaults();
  std::vector<std::pair<Variant, int>> compare;
  std::set<std::string> names;
  for (const RunSpec& s : PlanThroughputRuns(o, {"sqlite", "sqlite", ""})) {
    EXPECT_TRUE(names.insert(s.name).second) << "two runs named " << s.name << " would share a file";
    if (s.role == Role::kCompare) compare.emplace_back(s.variant, s.repeat);
  }
  const std::vector<std::pair<Variant, int>> expected = {
      {Variant::kIdem, 1}, {Variant::kCeiling, 1}, {Variant::kIdem, 2},  {Variant::kCeiling, 2},
      {Variant::kIdem, 3}, {Variant::kCeiling, 3}, {Variant::kNaive, 0}};
  EXPECT_EQ(compare, expected);
}

TEST(ComparePairs, TheModeSetsThePairsUnlessTheFlagDid) {
  BenchOptions full, quick, given;
  quick.quick = true;
  given.compare_pairs = 5;
  for (BenchOptions* o : {&full, &quick, &given}) o->ApplyModeDefaults();
  EXPECT_EQ(full.compare_pairs, 3);
  EXPECT_EQ(quick.compare_pairs, 1);
  EXPECT_EQ(given.compare_pairs, 5);
}

RunResult Compare(Variant v, int pair, double msgs_per_s, bool ok = true) {
  RunResult r;
  r.spec.store_label = "postgres";
  r.spec.role = Role::kCompare;
  r.spec.variant = v;
  r.spec.batch_size = v == Variant::kNaive ? 1 : 100;
  r.spec.repeat = pair;
  r.ok = ok;
  r.msgs_per_s = msgs_per_s;
  return r;
}

// Three pairs whose first idem run was slowed by the server (11,000 against
// 17,000 and 19,000 later): the first run alone would say 0.55 × the ceiling.
BenchOutcome ThreePairs() {
  BenchOutcome b;
  b.options.batch_size = 100;
  b.options.compare_pairs = 3;
  b.runs = {Compare(Variant::kIdem, 1, 11'000),    Compare(Variant::kCeiling, 1, 20'000),
            Compare(Variant::kIdem, 2, 17'000),    Compare(Variant::kCeiling, 2, 31'000),
            Compare(Variant::kIdem, 3, 19'000),    Compare(Variant::kCeiling, 3, 25'000),
            Compare(Variant::kNaive, 0, 1'000)};
  return b;
}

TEST(ComparePairs, TheSummaryTakesTheMediansAndTheMedianOfThePairsRatios) {
  const BenchOutcome b = ThreePairs();
  const StoreSummary s = SummariseStore(b, {"postgres", "postgresql://x/y", "fsync=on"});
  EXPECT_EQ(s.compare_pairs, 3);
  EXPECT_DOUBLE_EQ(s.idem_per_s, 17'000);
  EXPECT_DOUBLE_EQ(s.idem_min, 11'000);
  EXPECT_DOUBLE_EQ(s.idem_max, 19'000);
  EXPECT_DOUBLE_EQ(s.ceiling_per_s, 25'000);
  EXPECT_DOUBLE_EQ(s.naive_per_s, 1'000);
  EXPECT_DOUBLE_EQ(s.idem_over_naive, 17);
  // The pairs' ratios are 0.55, 0.548… and 0.76: their median, not 17,000 / 25,000 = 0.68.
  EXPECT_DOUBLE_EQ(s.idem_over_ceiling, 0.55);
  EXPECT_DOUBLE_EQ(s.idem_over_ceiling_min, 17'000.0 / 31'000);
  EXPECT_DOUBLE_EQ(s.idem_over_ceiling_max, 0.76);
  // The sweep's point at B (the compare runs) is the same median.
  EXPECT_DOUBLE_EQ(SweepPoint(b, "postgres", Variant::kIdem, 100), 17'000);
  EXPECT_DOUBLE_EQ(SweepPoint(b, "postgres", Variant::kCeiling, 100), 25'000);
}

TEST(ComparePairs, AFailedRunLeavesItsPairOutOfTheRatio) {
  BenchOutcome b = ThreePairs();
  b.runs[3].ok = false;  // the ceiling of pair 2
  const StoreSummary s = SummariseStore(b, {"postgres", "postgresql://x/y", "fsync=on"});
  EXPECT_EQ(s.compare_pairs, 2);
  EXPECT_DOUBLE_EQ(s.idem_over_ceiling, (0.55 + 0.76) / 2);
  EXPECT_DOUBLE_EQ(s.ceiling_per_s, (20'000 + 25'000) / 2.0);
  EXPECT_DOUBLE_EQ(s.idem_per_s, 17'000) << "idem's own runs all passed";
}

}  // namespace
}  // namespace idem::bench
