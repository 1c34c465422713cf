// Resident memory and CPU time of this process, for the bench's figures.
#pragma once

#include <cstdint>

namespace idem::bench {

// Resident set size now, KiB (from /proc/self/statm; 0 where unavailable).
int64_t CurrentRssKb();
// The highest resident set size this process has had, KiB (getrusage).
int64_t PeakRssKb();

// CPU time this process has used so far, seconds: in user space and in the kernel
// (for a database consumer, mostly writing and syncing its journal).
struct CpuTimes {
  double user_s = 0, system_s = 0;
};
CpuTimes ProcessCpuTimes();

// Bytes this process has handed to write(2)/pwrite(2) so far (/proc/self/io
// wchar; 0 where unavailable). For a SQLite consumer: its WAL traffic.
int64_t BytesWritten();

}  // namespace idem::bench
