#include "harness/machine_info.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <vector>

namespace idem::bench {
namespace {

std::string FilesystemOf(const std::string& path) {
  struct statfs fs {};
  if (statfs(path.c_str(), &fs) != 0) return "unknown";
  switch (static_cast<unsigned long>(fs.f_type)) {
    case 0x01021994UL: return "tmpfs (fsync costs nothing here: the naive figures are flattered)";
    case 0xEF53UL: return "ext4";
    case 0x58465342UL: return "xfs";
    case 0x9123683EUL: return "btrfs";
    case 0x794c7630UL: return "overlayfs";
    case 0x2FC12FC1UL: return "zfs";
    default: return "filesystem type 0x" + [&] {
      char buf[20];
      std::snprintf(buf, sizeof buf, "%lx", static_cast<unsigned long>(fs.f_type));
      return std::string(buf);
    }();
  }
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  return "unknown";
}

}  // namespace

double MeasureFsyncMs(const std::string& dir, int rounds) {
  const std::string path = dir + "/fsync-probe";
  const int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
  if (fd < 0) return 0;
  std::vector<double> ms;
  const std::string page(4096, 'x');
  for (int i = 0; i < rounds; ++i) {
    const auto start = std::chrono::steady_clock::now();
    if (pwrite(fd, page.data(), page.size(), 0) != static_cast<ssize_t>(page.size()) || fdatasync(fd) != 0) break;
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  close(fd);
  unlink(path.c_str());
  if (ms.empty()) return 0;
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

LoadAverage ReadLoadAverage() {
  LoadAverage l;
  std::ifstream in("/proc/loadavg");
  in >> l.one >> l.five >> l.fifteen;
  return l;
}

std::string UtcNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

MachineInfo ReadMachineInfo(const std::string& work_dir) {
  MachineInfo m;
  m.cpu_model = CpuModel();
  m.cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  utsname u{};
  if (uname(&u) == 0) m.kernel = std::string(u.sysname) + " " + u.release;
  m.work_dir_filesystem = FilesystemOf(work_dir);
  m.sqlite_version = sqlite3_libversion();
  m.started_utc = UtcNow();
  m.load_before = ReadLoadAverage();
  m.fsync_ms_before = MeasureFsyncMs(work_dir);
  return m;
}

nlohmann::json ToJson(const MachineInfo& m) {
  auto load = [](const LoadAverage& l) { return nlohmann::json::array({l.one, l.five, l.fifteen}); };
  return {{"cpu", m.cpu_model},
          {"cores", m.cores},
          {"kernel", m.kernel},
          {"work_dir_filesystem", m.work_dir_filesystem},
          {"sqlite", m.sqlite_version},
          {"started_utc", m.started_utc},
          {"load_average_before", load(m.load_before)},
          {"load_average_after", load(m.load_after)},
          {"fsync_ms_before", m.fsync_ms_before},
          {"fsync_ms_after", m.fsync_ms_after}};
}

}  // namespace idem::bench
