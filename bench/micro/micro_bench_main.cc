// idem_micro_bench: the hot-path micro-benchmarks on their own, with every
// Google Benchmark flag (--benchmark_filter, --benchmark_format=json, …).
// `idem bench` runs the same benchmarks and puts them in its report.
#include <benchmark/benchmark.h>

#include "micro/hot_paths.h"

int main(int argc, char** argv) {
  idem::RegisterHotPathBenchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
