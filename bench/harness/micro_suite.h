// Runs the hot-path micro-benchmarks (micro/hot_paths.h) in this process and
// collects their figures for the report. Run it in a child process: Google
// Benchmark keeps global state.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace idem::bench {

struct MicroResult {
  std::string name;           // e.g. "BM_ClaimBatch/100"
  double ns_per_op = 0;       // wall time per iteration
  double items_per_s = 0;     // when the benchmark counts items (0 otherwise)
  double bytes_per_s = 0;     // when it counts bytes (0 otherwise)
  int64_t iterations = 0;
};

// `min_time_s`: how long each benchmark runs at least (Google Benchmark's
// --benchmark_min_time); shorter is noisier.
std::vector<MicroResult> RunMicroBenchmarks(double min_time_s);

nlohmann::json ToJson(const std::vector<MicroResult>& results);
std::vector<MicroResult> MicroResultsFromJson(const nlohmann::json& j);

}  // namespace idem::bench
