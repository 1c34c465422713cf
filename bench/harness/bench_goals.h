// The performance goals, and how one bench run stands against them: a row per
// goal this run has the inputs for, with the run's figure and met or missed.
// A goal whose inputs were not measured (no --store, no soak run, a broker
// not given, --only) has no row: not measured is not missed.
#pragma once

#include <string>
#include <vector>

#include "harness/bench_runner.h"

namespace idem::bench {

enum class GoalBound { kAtLeast, kAtMost };

// The goals in report order.
enum class GoalId {
  kSqliteIdemOverCeiling,
  kSqliteIdemOverNaive,
  kPostgresIdemOverCeiling,
  kPostgresIdemOverNaive,
  kPostgresOneWorkerMsgs,
  kEmbeddedEndToEnd,
  kEmbeddedInStoreEndToEnd,
  kRabbitMqEndToEnd,
  kKafkaMockEndToEnd,
  kKafkaEndToEnd,
  kSoakMemoryGrowth,
};

// One goal: what is measured and the bound it must stay within.
struct Goal {
  GoalId id;
  const char* path;    // what is measured, e.g. "PostgreSQL (fsync on), idem / ceiling"
  GoalBound bound;
  double threshold;
  const char* note;    // after the bound in the report, e.g. " (hold it)"; "" for none
};

struct GoalRow {
  Goal goal;
  bool has_figure = false;  // false: the runs were planned but one failed (the row is then missed)
  double figure = 0;
  std::string shown;        // the figure as the report prints it, with what belongs beside it
  bool met = false;
};

const Goal& GoalOf(GoalId id);
// "≥ 0.85", "≥ 20,000", "≤ 0.5 MiB per million messages"
std::string BoundText(const Goal& goal);

// Every goal whose inputs `b` measured.
std::vector<GoalRow> EvaluateGoals(const BenchOutcome& b);

}  // namespace idem::bench
