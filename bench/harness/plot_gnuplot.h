// The report's picture: throughput against batch size, one line per variant
// and store, drawn by gnuplot (Debian: gnuplot-nox) into a PNG.
#pragma once

#include <string>

#include "harness/bench_runner.h"
#include "idem/status.h"

namespace idem::bench {

// Writes the gnuplot script next to `png_path` (as .gp) and runs gnuplot on it.
// Fails with a message that says how to install gnuplot when it is missing.
Status PlotThroughputVsBatch(const BenchOutcome& b, const std::string& png_path);

}  // namespace idem::bench
