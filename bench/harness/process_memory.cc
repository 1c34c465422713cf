#include "harness/process_memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <string_view>

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

namespace idem::bench {

CpuTimes ProcessCpuTimes() {
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return {};
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return {secs(u.ru_utime), secs(u.ru_stime)};
}

}  // namespace idem::bench

namespace idem::bench {

int64_t BytesWritten() {
  FILE* f = std::fopen("/proc/self/io", "r");
  if (!f) return 0;
  char name[64];
  long long value = 0, wchar = 0;
  while (std::fscanf(f, "%63s %lld", name, &value) == 2)
    if (std::string_view(name) == "wchar:") wchar = value;
  std::fclose(f);
  return wchar;
}

}  // namespace idem::bench
