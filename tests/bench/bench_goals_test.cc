// The goals table: one row per goal in a fixed order, each met or missed
// against its bound from fixed figures, or not measured when the run had no
// inputs for it — never left out, never counted as missed.
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
void AddStore(BenchOutcome* b, const std::string& label, const std::string& url, const std::string& durability,
              double idem, double naive, double ceiling) {
  b->runs.push_back(MakeRun(label, Role::kCompare, Variant::kIdem, idem));
  b->runs.push_back(MakeRun(label, Role::kCompare, Variant::kNaive, naive));
  b->runs.push_back(MakeRun(label, Role::kCompare, Variant::kCeiling, ceiling));
  StoreSummary s;
  s.target = {label, url, durability};
  s.idem_per_s = idem;
  s.naive_per_s = naive;
  s.ceiling_per_s = ceiling;
  s.idem_over_naive = naive > 0 ? idem / naive : 0;
  s.idem_over_ceiling = ceiling > 0 ? idem / ceiling : 0;
  b->summaries.push_back(s);
}

void AddSqlite(BenchOutcome* b, double idem, double naive, double ceiling) {
  AddStore(b, "sqlite", "sqlite", "WAL", idem, naive, ceiling);
}

void AddWorkers(BenchOutcome* b, const std::string& label, double one, double four, int64_t reruns_at_four) {
  for (auto [n, rate] : {std::pair{1, one}, std::pair{4, four}}) {
    WorkersResult w;
    w.spec.store_label = label;
    w.spec.workers = n;
    w.ok = true;
    w.msgs_per_s = rate;
    w.transaction_retries = n == 4 ? reruns_at_four : 0;
    b->workers.push_back(w);
  }
}

const GoalRow& Row(const std::vector<GoalRow>& rows, GoalId id) {
  for (const GoalRow& r : rows)
    if (r.goal.id == id) return r;
  ADD_FAILURE() << "no row for goal " << static_cast<int>(id);
  return rows.front();
}

TEST(BenchGoals, EveryGoalHasARowInTheIssuesOrderAndAnEmptyRunMeasuresNone) {
  const std::vector<GoalRow> rows = EvaluateGoals(BenchOutcome{});
  const GoalId order[] = {GoalId::kSqliteIdemOverCeiling, GoalId::kPostgresIdemOverCeiling,
                          GoalId::kMariaDbIdemOverCeiling, GoalId::kIdemOverNaiveEveryStore,
                          GoalId::kPostgresOneWorkerMsgs,  GoalId::kPostgresFourWorkers,
                          GoalId::kMariaDbFourWorkers,     GoalId::kEndToEndEachBroker,
                          GoalId::kServiceOverLibrary,     GoalId::kSoakMemoryGrowth};
  ASSERT_EQ(rows.size(), std::size(order));
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].goal.id, order[i]);
    EXPECT_EQ(rows[i].state, GoalState::kNotMeasured) << rows[i].goal.path;
    EXPECT_FALSE(rows[i].met());
  }
  EXPECT_EQ(Row(rows, GoalId::kPostgresIdemOverCeiling).shown, "no PostgreSQL --store");
  EXPECT_STREQ(GoalStateName(GoalState::kNotMeasured), "not measured in this run");
}

TEST(BenchGoals, SqliteAloneJudgesItsOwnRowsAndLeavesTheServersNotMeasured) {
  BenchOutcome b;
  b.options.batch_size = 100;
  AddSqlite(&b, 10'000, 400, 15'000);  // 25 × naive, 0.67 × ceiling
  const std::vector<GoalRow> rows = EvaluateGoals(b);
  EXPECT_EQ(Row(rows, GoalId::kSqliteIdemOverCeiling).state, GoalState::kMissed);
  EXPECT_EQ(Row(rows, GoalId::kSqliteIdemOverCeiling).shown, "0.67 (idem 10,000, ceiling 15,000 msg/s)");
  EXPECT_EQ(Row(rows, GoalId::kIdemOverNaiveEveryStore).state, GoalState::kMet);
  EXPECT_EQ(Row(rows, GoalId::kIdemOverNaiveEveryStore).shown,
            "25.00 SQLite (idem B=100 over one message per transaction)");
  EXPECT_EQ(Row(rows, GoalId::kMariaDbIdemOverCeiling).state, GoalState::kNotMeasured);
  EXPECT_EQ(Row(rows, GoalId::kPostgresOneWorkerMsgs).state, GoalState::kNotMeasured);
}

TEST(BenchGoals, TheNinetyPercentBoundIsInclusiveAndSeveralPairsShowTheirSpread) {
  BenchOutcome b;
  AddSqlite(&b, 9'000, 400, 10'000);
  b.summaries[0].compare_pairs = 3;
  b.summaries[0].idem_over_ceiling_min = 0.85;
  b.summaries[0].idem_over_ceiling_max = 0.95;
  const GoalRow row = Row(EvaluateGoals(b), GoalId::kSqliteIdemOverCeiling);
  EXPECT_EQ(row.state, GoalState::kMet);
  EXPECT_EQ(row.shown, "0.90 (idem 9,000, ceiling 10,000 msg/s; medians of 3 pairs, 0.85–0.95)");
  b.summaries[0].idem_over_ceiling = 0.899;
  EXPECT_EQ(Row(EvaluateGoals(b), GoalId::kSqliteIdemOverCeiling).state, GoalState::kMissed);
}

TEST(BenchGoals, IdemOverNaiveIsJudgedByTheLowestStore) {
  BenchOutcome b;
  b.options.batch_size = 100;
  AddSqlite(&b, 10'000, 1'000, 15'000);  // 10 ×
  AddStore(&b, "postgres", "postgresql://x/y", "postgres, fsync=on, synchronous_commit=on", 16'000, 800, 27'000);
  AddStore(&b, "mysql", "mysql://x/y", "mysql, innodb_flush_log_at_trx_commit=1", 16'000, 4'000, 24'000);  // 4 ×
  const GoalRow row = Row(EvaluateGoals(b), GoalId::kIdemOverNaiveEveryStore);
  EXPECT_EQ(row.state, GoalState::kMissed);
  EXPECT_DOUBLE_EQ(row.figure, 4.0);
  EXPECT_EQ(row.shown, "10.00 SQLite, 20.00 PostgreSQL, 4.00 MariaDB (idem B=100 over one message per transaction)");
}

TEST(BenchGoals, ServerRowsCountOnlyWhenTheServerFlushesEveryCommit) {
  BenchOutcome b;
  b.options.batch_size = 100;
  AddStore(&b, "postgres", "postgresql://x/y", "postgres, fsync=off, synchronous_commit=on", 25'000, 1'000, 26'000);
  AddStore(&b, "mariadb", "mariadb://x/y", "mysql, innodb_flush_log_at_trx_commit=2", 25'000, 1'000, 26'000);
  std::vector<GoalRow> rows = EvaluateGoals(b);
  for (GoalId id : {GoalId::kPostgresIdemOverCeiling, GoalId::kPostgresOneWorkerMsgs, GoalId::kMariaDbIdemOverCeiling}) {
    EXPECT_EQ(Row(rows, id).state, GoalState::kNotMeasured) << Row(rows, id).goal.path;
    EXPECT_NE(Row(rows, id).shown.find("does not flush every commit"), std::string::npos) << Row(rows, id).shown;
  }

  b.summaries[0].target.durability = "postgres, fsync=on, synchronous_commit=on";
  b.summaries[1].target.durability = "mysql, innodb_flush_log_at_trx_commit=1, log_bin=0";
  b.runs.push_back(MakeRun("postgres", Role::kSweep, Variant::kIdem, 30'000));
  b.runs.back().spec.batch_size = 1000;
  rows = EvaluateGoals(b);
  EXPECT_EQ(Row(rows, GoalId::kPostgresIdemOverCeiling).state, GoalState::kMet);
  EXPECT_EQ(Row(rows, GoalId::kMariaDbIdemOverCeiling).state, GoalState::kMet);
  EXPECT_EQ(Row(rows, GoalId::kPostgresOneWorkerMsgs).state, GoalState::kMet);
  EXPECT_EQ(Row(rows, GoalId::kPostgresOneWorkerMsgs).shown, "25,000 (idem B=100); B=1,000: 30,000");
  b.summaries[0].idem_per_s = 19'999;
  EXPECT_EQ(Row(EvaluateGoals(b), GoalId::kPostgresOneWorkerMsgs).state, GoalState::kMissed);
}

TEST(BenchGoals, FourWorkersScaleAgainstOneAndMariaDbAlsoNeedsNoReruns) {
  BenchOutcome b;
  AddStore(&b, "postgres", "postgresql://x/y", "postgres, fsync=on", 20'000, 1'000, 26'000);
  AddStore(&b, "mysql", "mysql://x/y", "mysql, innodb_flush_log_at_trx_commit=1", 17'000, 1'000, 24'000);
  AddWorkers(&b, "postgres", 20'000, 50'000, 2);  // 2.5 ×: met, reruns shown but not judged
  AddWorkers(&b, "mysql", 17'000, 51'000, 3);     // 3 ×, but 3 reruns
  std::vector<GoalRow> rows = EvaluateGoals(b);
  EXPECT_EQ(Row(rows, GoalId::kPostgresFourWorkers).state, GoalState::kMet);
  EXPECT_EQ(Row(rows, GoalId::kPostgresFourWorkers).shown,
            "2.50 × (50,000 against 20,000 msg/s); 2 transaction reruns at 4 workers");
  EXPECT_EQ(Row(rows, GoalId::kMariaDbFourWorkers).state, GoalState::kMissed) << "3 reruns";
  EXPECT_EQ(BoundText(GoalOf(GoalId::kMariaDbFourWorkers)), "≥ 2.5 ×, 0 reruns");

  b.workers.back().transaction_retries = 0;
  rows = EvaluateGoals(b);
  EXPECT_EQ(Row(rows, GoalId::kMariaDbFourWorkers).state, GoalState::kMet);
  b.workers[1].msgs_per_s = 49'000;  // postgres at 4: 2.45 ×
  EXPECT_EQ(Row(EvaluateGoals(b), GoalId::kPostgresFourWorkers).state, GoalState::kMissed);
}

TEST(BenchGoals, EndToEndIsIdemOverCeilingOnEveryBrokerAndNamesTheBrokersNotGiven) {
  BenchOutcome b;
  for (auto [label, ratio] : {std::pair{"embedded", 0.95}, std::pair{"embedded-in-store", 0.91}}) {
    EndToEndSummary e;
    e.broker = {label, "queue"};
    e.pairs = 3;
    e.ratio = 0.25;  // idem / raw: informative, not judged
    e.over_ceiling = ratio;
    e.over_ceiling_min = ratio - 0.01;
    e.over_ceiling_max = ratio + 0.01;
    b.end_to_end.push_back(e);
  }
  GoalRow row = Row(EvaluateGoals(b), GoalId::kEndToEndEachBroker);
  EXPECT_EQ(row.state, GoalState::kMet);
  EXPECT_EQ(row.shown,
            "embedded 0.95 (0.94–0.96), embedded-in-store 0.91 (0.90–0.92); not measured: RabbitMQ (--rabbitmq-url), "
            "Kafka (--kafka-url)");
  EndToEndSummary rabbit = b.end_to_end.front();
  rabbit.broker = {"rabbitmq", "amqp://x"};
  rabbit.over_ceiling = 0.89;
  b.end_to_end.push_back(rabbit);
  row = Row(EvaluateGoals(b), GoalId::kEndToEndEachBroker);
  EXPECT_EQ(row.state, GoalState::kMissed) << "one broker under 0.9 misses the row";
  EXPECT_DOUBLE_EQ(row.figure, 0.89);
}

TEST(BenchGoals, IdemRunAgainstTheLibraryOnEachQueueAndAFailedRoundIsMissed) {
  BenchOutcome b;
  ServiceSummary s;
  s.broker = {"embedded-in-store", "queue-in-store"};
  s.pairs = 3;
  s.library_per_s = 40'000;
  s.service_per_s = 38'000;
  s.ratio = 0.95;
  s.ratio_min = 0.92;
  s.ratio_max = 0.97;
  b.service.push_back(s);
  GoalRow row = Row(EvaluateGoals(b), GoalId::kServiceOverLibrary);
  EXPECT_EQ(row.state, GoalState::kMet);
  EXPECT_EQ(row.shown, "embedded-in-store 0.95 (0.92–0.97; idem run 38,000, library 40,000 msg/s)");
  s.broker = {"embedded", "queue"};
  s.pairs = 0;
  b.service.push_back(s);
  row = Row(EvaluateGoals(b), GoalId::kServiceOverLibrary);
  EXPECT_EQ(row.state, GoalState::kMissed);
  EXPECT_FALSE(row.has_figure);
  EXPECT_NE(row.shown.find("embedded a run failed"), std::string::npos) << row.shown;
}

TEST(BenchGoals, AFailedRunIsAMissedRowNotANotMeasuredOne) {
  BenchOutcome b;
  AddSqlite(&b, 10'000, 0, 15'000);
  b.runs[1].ok = false;
  const GoalRow naive = Row(EvaluateGoals(b), GoalId::kIdemOverNaiveEveryStore);
  EXPECT_EQ(naive.state, GoalState::kMissed);
  EXPECT_FALSE(naive.has_figure);
  EXPECT_EQ(naive.shown, "a run failed SQLite (idem B=100 over one message per transaction)");
}

TEST(BenchGoals, SoakMemoryIsMetWhenFlatAndMissedWhenItGrows) {
  BenchOutcome b;
  EXPECT_EQ(Row(EvaluateGoals(b), GoalId::kSoakMemoryGrowth).state, GoalState::kNotMeasured);
  RunResult soak = MakeRun("sqlite", Role::kSoak, Variant::kIdem, 30'000);
  soak.rss_kb_at = {{50'000, 10'000}, {1'000'000, 10'100}};
  b.runs.push_back(soak);
  const GoalRow flat = Row(EvaluateGoals(b), GoalId::kSoakMemoryGrowth);
  EXPECT_EQ(flat.state, GoalState::kMet) << flat.shown;
  b.runs[0].rss_kb_at.back().second = 12'000;  // 2,000 KiB over 950,000 messages: 2.06 MiB per million
  EXPECT_EQ(Row(EvaluateGoals(b), GoalId::kSoakMemoryGrowth).state, GoalState::kMissed);
}

TEST(BenchGoals, BoundsReadAsTheIssueWritesThem) {
  EXPECT_EQ(BoundText(GoalOf(GoalId::kSqliteIdemOverCeiling)), "≥ 0.9");
  EXPECT_EQ(BoundText(GoalOf(GoalId::kIdemOverNaiveEveryStore)), "≥ 5 (hold)");
  EXPECT_EQ(BoundText(GoalOf(GoalId::kPostgresOneWorkerMsgs)), "≥ 20,000");
  EXPECT_EQ(BoundText(GoalOf(GoalId::kPostgresFourWorkers)), "≥ 2.5 ×");
  EXPECT_EQ(BoundText(GoalOf(GoalId::kEndToEndEachBroker)), "≥ 0.9 on each");
  EXPECT_EQ(BoundText(GoalOf(GoalId::kSoakMemoryGrowth)), "≤ 0.5 MiB per million messages (flat, hold)");
}

}  // namespace
}  // namespace idem::bench
