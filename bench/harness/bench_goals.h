// The performance goals, and how one bench run stands against them: one row
// per goal, always in the same order, with the run's figure and met or missed
// — or "not measured in this run" when the run had no inputs for it (no
// --store of that kind, no soak, --part): not measured is not missed.
#pragma once

#include <string>
#include <vector>

#include "harness/bench_runner.h"

namespace idem::bench {

enum class GoalBound { kAtLeast, kAtMost };

// The goals in report order.
enum class GoalId {
  kSqliteIdemOverCeiling,
  kPostgresIdemOverCeiling,
  kMariaDbIdemOverCeiling,
  kIdemOverNaiveEveryStore,
  kPostgresOneWorkerMsgs,
  kPostgresFourWorkers,
  kMariaDbFourWorkers,     // also: no transaction reruns at 4 workers
  kEndToEndEachBroker,     // idem / ceiling on every broker measured
  kServiceOverLibrary,     // `idem run` / the library's pipeline on every queue measured
  kSoakMemoryGrowth,
};

// One goal: what is measured and the bound it must stay within.
struct Goal {
  GoalId id;
  const char* path;    // what is measured, e.g. "PostgreSQL, idem / ceiling"
  GoalBound bound;
  double threshold;
  const char* note;    // after the bound in the report, e.g. " (hold)"; "" for none
};

enum class GoalState { kMet, kMissed, kNotMeasured };

struct GoalRow {
  Goal goal;
  GoalState state = GoalState::kNotMeasured;
  bool has_figure = false;  // false: not measured, or a run it needs failed (then missed)
  double figure = 0;        // the figure judged (of several brokers or stores, the lowest)
  std::string shown;        // the figure as the report prints it, or why there is none
  bool met() const { return state == GoalState::kMet; }
};

const Goal& GoalOf(GoalId id);
// "≥ 0.9", "≥ 20,000", "≤ 0.5 MiB per million messages (flat, hold)"
std::string BoundText(const Goal& goal);
// "met", "missed", "not measured in this run"
const char* GoalStateName(GoalState state);

// Every goal, in report order, judged from `b`.
std::vector<GoalRow> EvaluateGoals(const BenchOutcome& b);

}  // namespace idem::bench
