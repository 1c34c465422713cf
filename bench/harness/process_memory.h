// Resident memory of this process, for the bench's memory figures.
#pragma once

#include <cstdint>

namespace idem::bench {

// Resident set size now, KiB (from /proc/self/statm; 0 where unavailable).
int64_t CurrentRssKb();
// The highest resident set size this process has had, KiB (getrusage).
int64_t PeakRssKb();

}  // namespace idem::bench
