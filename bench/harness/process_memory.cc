#include "harness/process_memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

namespace idem::bench {

int64_t CurrentRssKb() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  long long size = 0, resident = 0;
  const int got = std::fscanf(f, "%lld %lld", &size, &resident);
  std::fclose(f);
  if (got != 2) return 0;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int64_t PeakRssKb() {
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
  return u.ru_maxrss;  // Linux reports KiB
}

}  // namespace idem::bench
