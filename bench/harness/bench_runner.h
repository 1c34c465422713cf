// Runs a whole bench: every planned configuration in a child process of its
// own, the latency runs at rates derived from the throughput runs, the soak,
// and the micro-benchmarks; then the ratios.
// REQUIRES: called from a process with no other threads (runs fork).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/bench_plan.h"
#include "harness/machine_info.h"
#include "harness/micro_suite.h"
#include "harness/run_spec.h"
#include "idem/status.h"
#include "workers/workers_bench.h"

namespace idem::bench {

// The headline figures of one store. idem and ceiling come from the compare
// runs' alternated pairs: each the median of its runs that passed, with the
// lowest and highest; idem / ceiling is the median of the ratios of the pairs
// where both passed. naive is its one run.
struct StoreSummary {
  StoreTarget target;
  double idem_per_s = 0, naive_per_s = 0, ceiling_per_s = 0;
  double idem_min = 0, idem_max = 0, ceiling_min = 0, ceiling_max = 0;
  int compare_pairs = 0;         // pairs where both runs passed
  double idem_over_naive = 0;    // 0 when a run it needs failed
  double idem_over_ceiling = 0;
  double idem_over_ceiling_min = 0, idem_over_ceiling_max = 0;  // the lowest and highest pair
  double random_keys_idem_over_ceiling = 0;
  double history_idem_over_ceiling = 0;
  double no_copies_idem_over_ceiling = 0;
  double common_rate = 0, high_rate = 0;  // offered rates of the latency runs, msg/s
};

// One broker's end-to-end row: idem against the same with the guard off (the
// ceiling) and against the broker's raw loop, from alternated rounds of runs
// (medians; the spread is the lowest and highest round).
struct EndToEndSummary {
  BrokerTarget broker;
  int64_t messages = 0;  // per run
  int pairs = 0;  // rounds where every run passed
  double idem_per_s = 0, ceiling_per_s = 0, raw_per_s = 0;  // medians
  double idem_min = 0, idem_max = 0, ceiling_min = 0, ceiling_max = 0, raw_min = 0, raw_max = 0;
  double ratio = 0, ratio_min = 0, ratio_max = 0;  // idem / raw: median, lowest and highest round
  double over_ceiling = 0, over_ceiling_min = 0, over_ceiling_max = 0;  // idem / ceiling
};

// `idem run` against the library's pipeline on one embedded queue, from
// alternated rounds (medians and ranges; idem-run / library is the median of
// the rounds' ratios, with the lowest and highest round).
struct ServiceSummary {
  BrokerTarget broker;
  int64_t messages = 0;  // published per run
  int pairs = 0;         // rounds where both runs passed
  double library_per_s = 0, library_min = 0, library_max = 0;
  double service_per_s = 0, service_min = 0, service_max = 0;
  double ratio = 0, ratio_min = 0, ratio_max = 0;  // idem run / library
  // `idem run` without its log line per message, where it ran (quiet_pairs > 0).
  int quiet_pairs = 0;
  double quiet_per_s = 0, quiet_min = 0, quiet_max = 0;
  double quiet_ratio = 0, quiet_ratio_min = 0, quiet_ratio_max = 0;  // … / library
};

// The Redis filter on one store at one share of copies: idem with the filter
// against idem without it, from alternated pairs (medians; with / without is
// the median of the pairs' ratios, with the lowest and highest pair).
struct FilterSummary {
  std::string store;  // label
  double duplicate_ratio = 0;
  int pairs = 0;  // pairs where both runs passed
  double without_per_s = 0, with_per_s = 0;
  double ratio = 0, ratio_min = 0, ratio_max = 0;
  double filtered_share = 0;  // messages the filter stopped ÷ messages, over the runs with it
};

struct BenchOutcome {
  BenchOptions options;
  MachineInfo machine;
  std::vector<StoreTarget> stores;
  std::vector<RunResult> runs;
  std::vector<StoreSummary> summaries;
  std::vector<EndToEndSummary> end_to_end;
  std::vector<ServiceSummary> service;  // idem run against the library, per queue
  std::vector<FilterSummary> filter;
  std::vector<WorkersResult> workers;  // each server store at kWorkerCounts
  std::vector<MicroResult> micro;
  std::string micro_error;
  double total_seconds = 0;
  bool all_exactly_once = false;  // every run completed and passed every check
  // Filled in by the caller once the report is written.
  std::string report_path, plot_path, plot_note;
};

using Progress = std::function<void(const std::string& line)>;

// The stores to measure (StoreTargets), each checked in a child process: the
// store opens, Redis answers, and the store's durability settings are read.
// The error says what to do.
Result<std::vector<StoreTarget>> CheckTargets(const BenchOptions& options);

// `targets`: what CheckTargets returned.
BenchOutcome RunBench(const BenchOptions& options, const std::vector<StoreTarget>& targets,
                      const Progress& progress);

// The run of `store` with this role and variant (and batch size when > 0); null if none.
// Of alternated runs (compare, filter, end-to-end) it is the first.
const RunResult* FindRun(const BenchOutcome& b, const std::string& store, Role role, Variant variant,
                         size_t batch = 0);
// The throughput of `variant` at batch size `batch` in the sweep (compare runs
// included, as the median of their pairs); 0 if none.
double SweepPoint(const BenchOutcome& b, const std::string& store, Variant variant, size_t batch);

// The soak run; null if this run has none.
const RunResult* SoakRun(const BenchOutcome& b);
// How much its RSS grew from its first sample to its last, in MiB per million
// messages; nullopt with fewer than two samples over some messages.
std::optional<double> SoakGrowthMiBPerMillion(const RunResult& soak);

// Alternated runs, pair by pair: (a, b), either null when it was not run.
using RunPairs = std::vector<std::pair<const RunResult*, const RunResult*>>;
// The compare runs of `store` as (idem, ceiling), pairs 1 … options.compare_pairs.
RunPairs ComparePairs(const BenchOutcome& b, const std::string& store);
// The throughput figures of `store` from its runs in `b` (the latency rates are left 0).
StoreSummary SummariseStore(const BenchOutcome& b, const StoreTarget& store);

// `w`'s msg/s over that of one worker on the same store; 0 if either failed.
double ScalingVsOneWorker(const BenchOutcome& b, const WorkersResult& w);

nlohmann::json ToJson(const BenchOutcome& b);

}  // namespace idem::bench
