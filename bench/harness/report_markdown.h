// The bench report as Markdown: the headline ratios, the goals met or missed,
// end to end, several workers and the Redis filter on the server stores, what
// every number means, latency, the batch-size sweep (with the plot),
// table size and key order, memory, the micro-benchmarks and every run.
#pragma once

#include <string>

#include "harness/bench_runner.h"

namespace idem::bench {

// `plot_file`: the PNG's name relative to the report ("" when there is none);
// `command`: the command line that reproduces the report.
std::string RenderReport(const BenchOutcome& b, const std::string& plot_file, const std::string& command);

}  // namespace idem::bench
