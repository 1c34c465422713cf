// The goals table: a row per goal this run measured, met or missed against
// its bound, and no row for a goal whose inputs the run did not have.
#include "harness/bench_goals.h"

#include <gtest/gtest.h>

namespace idem::bench {
namespace {

RunResult MakeRun(const std::string& store, Role role, Variant v, double msgs_per_s, bool ok = true) {
  RunResult r;
  r.spec.store_label = store;
  r.spec.role = role;
  r.spec.variant = v;
  r.spec.batch_size = v == Variant::kNaive ? 1 : 100;
  r.ok = ok;
  r.msgs_per_s = msgs_per_s;
  return r;
}

// The compare runs of one store and its summary, as RunBench leaves them.
void AddStore(BenchOutcome* b, const std::string& label, const std::string& durability, double idem, double naive,
              double ceiling) {
  b->runs.push_back(MakeRun(label, Role::kCompare, Variant::kIdem, idem));
  b->runs.push_back(MakeRun(label, Role::kCompare, Variant::kNaive, naive));
  b->runs.push_back(MakeRun(label, Role::kCompare, Variant::kCeiling, ceiling));
  StoreSummary s;
  s.target = {label, label == "sqlite" ? "sqlite" : "postgresql://x/y", durability};
  s.idem_per_s = idem;
  s.naive_per_s = naive;
  s.ceiling_per_s = ceiling;
  s.idem_over_naive = naive > 0 ? idem / naive : 0;
  s.idem_over_ceiling = ceiling > 0 ? idem / ceiling : 0;
  b->summaries.push_back(s);
}

const GoalRow* Row(const std::vector<GoalRow>& rows, GoalId id) {
  for (const GoalRow& r : rows)
    if (r.goal.id == id) return &r;
  return nullptr;
}

TEST(BenchGoals, SqliteAloneHasOnlyItsOwnRowsEachMetOrMissed) {
  BenchOutcome b;
  AddStore(&b, "sqlite", "WAL", 10'000, 400, 15'000);  // 25 × naive, 0.67 × ceiling
  const std::vector<GoalRow> rows = EvaluateGoals(b);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_NE(Row(rows, GoalId::kSqliteIdemOverNaive), nullptr);
  EXPECT_TRUE(Row(rows, GoalId::kSqliteIdemOverNaive)->met);
  ASSERT_NE(Row(rows, GoalId::kSqliteIdemOverCeiling), nullptr);
  EXPECT_FALSE(Row(rows, GoalId::kSqliteIdemOverCeiling)->met);
  EXPECT_EQ(Row(rows, GoalId::kSqliteIdemOverCeiling)->shown, "0.67 (idem 10,000, ceiling 15,000 msg/s)");
}

TEST(BenchGoals, FiguresFromSeveralPairsSayTheyAreMediansAndHowFarThePairsSpread) {
  BenchOutcome b;
  AddStore(&b, "sqlite", "WAL", 10'000, 400, 15'000);
  b.summaries[0].compare_pairs = 3;
  b.summaries[0].idem_over_ceiling_min = 0.6;
  b.summaries[0].idem_over_ceiling_max = 0.7;
  const std::vector<GoalRow> rows = EvaluateGoals(b);
  EXPECT_EQ(Row(rows, GoalId::kSqliteIdemOverCeiling)->shown,
            "0.67 (idem 10,000, ceiling 15,000 msg/s; medians of 3 pairs, 0.60–0.70)");
  EXPECT_EQ(Row(rows, GoalId::kSqliteIdemOverNaive)->shown,
            "25.00 (idem 10,000, naive 400 msg/s; idem the median of 3 runs)");
}

TEST(BenchGoals, PostgresRowsOnlyWithFsyncOnAndTheOneWorkerRateAgainstItsBound) {
  BenchOutcome b;
  b.options.batch_size = 100;
  AddStore(&b, "sqlite", "WAL", 10'000, 400, 15'000);
  AddStore(&b, "postgres", "postgres, fsync=off, synchronous_commit=on", 25'000, 1'000, 26'000);
  EXPECT_EQ(Row(EvaluateGoals(b), GoalId::kPostgresOneWorkerMsgs), nullptr) << "fsync off does not count";
  EXPECT_EQ(EvaluateGoals(b).size(), 2u) << "only SQLite's rows";

  b.summaries.back().target.durability = "postgres, fsync=on, synchronous_commit=on";
  b.runs.push_back(MakeRun("postgres", Role::kSweep, Variant::kIdem, 30'000));
  b.runs.back().spec.batch_size = 1000;
  const std::vector<GoalRow> rows = EvaluateGoals(b);
  ASSERT_NE(Row(rows, GoalId::kPostgresOneWorkerMsgs), nullptr);
  EXPECT_TRUE(Row(rows, GoalId::kPostgresOneWorkerMsgs)->met);
  EXPECT_EQ(Row(rows, GoalId::kPostgresOneWorkerMsgs)->shown, "25,000 (idem B=100); B=1,000: 30,000");
  EXPECT_TRUE(Row(rows, GoalId::kPostgresIdemOverNaive)->met);
  EXPECT_TRUE(Row(rows, GoalId::kPostgresIdemOverCeiling)->met);

  b.summaries.back().idem_per_s = 19'999;
  const std::vector<GoalRow> slower = EvaluateGoals(b);
  EXPECT_FALSE(Row(slower, GoalId::kPostgresOneWorkerMsgs)->met);
}

TEST(BenchGoals, AFailedRunIsAMissedRowNotALeftOutOne) {
  BenchOutcome b;
  AddStore(&b, "sqlite", "WAL", 10'000, 0, 15'000);
  b.runs[1].ok = false;
  const std::vector<GoalRow> rows = EvaluateGoals(b);
  const GoalRow* naive = Row(rows, GoalId::kSqliteIdemOverNaive);
  ASSERT_NE(naive, nullptr);
  EXPECT_FALSE(naive->has_figure);
  EXPECT_FALSE(naive->met);
  EXPECT_EQ(naive->shown, "no figure (a run failed)");
}

TEST(BenchGoals, EndToEndRowsOnlyForTheBrokersMeasuredAndTheBoundIsInclusive) {
  BenchOutcome b;
  EndToEndSummary e;
  e.broker = {"rabbitmq", "amqp://x"};
  e.pairs = 3;
  e.ratio = 0.8;
  b.end_to_end.push_back(e);
  const std::vector<GoalRow> rows = EvaluateGoals(b);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].goal.id, GoalId::kRabbitMqEndToEnd);
  EXPECT_TRUE(rows[0].met);
  b.end_to_end[0].ratio = 0.79;
  EXPECT_FALSE(EvaluateGoals(b)[0].met);
}

TEST(BenchGoals, SoakMemoryIsMetWhenFlatAndMissedWhenItGrows) {
  BenchOutcome b;
  EXPECT_TRUE(EvaluateGoals(b).empty()) << "no soak run: no row";
  RunResult soak = MakeRun("sqlite", Role::kSoak, Variant::kIdem, 30'000);
  soak.rss_kb_at = {{50'000, 10'000}, {1'000'000, 10'100}};
  b.runs.push_back(soak);
  const std::vector<GoalRow> flat = EvaluateGoals(b);
  ASSERT_EQ(flat.size(), 1u);
  EXPECT_EQ(flat[0].goal.id, GoalId::kSoakMemoryGrowth);
  EXPECT_TRUE(flat[0].met) << flat[0].shown;
  b.runs[0].rss_kb_at.back().second = 12'000;  // 2,000 KiB over 950,000 messages: 2.06 MiB per million
  EXPECT_FALSE(EvaluateGoals(b)[0].met) << EvaluateGoals(b)[0].shown;
}

TEST(BenchGoals, BoundsReadAsTheReportPrintsThem) {
  EXPECT_EQ(BoundText(GoalOf(GoalId::kSqliteIdemOverCeiling)), "≥ 0.85");
  EXPECT_EQ(BoundText(GoalOf(GoalId::kSqliteIdemOverNaive)), "≥ 5 (hold it)");
  EXPECT_EQ(BoundText(GoalOf(GoalId::kPostgresOneWorkerMsgs)), "≥ 20,000");
}

}  // namespace
}  // namespace idem::bench
