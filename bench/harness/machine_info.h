// Where the numbers were taken: they only mean something next to the machine,
// how busy it was, and whether the SQLite files sat on a real disk (on tmpfs an
// fsync is free, which flatters every one-transaction-per-message consumer).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace idem::bench {

struct LoadAverage {
  double one = 0, five = 0, fifteen = 0;
};

struct MachineInfo {
  std::string cpu_model;
  int cores = 0;
  std::string kernel;
  std::string work_dir_filesystem;  // ext4, xfs, tmpfs, …
  std::string sqlite_version;
  std::string started_utc;
  LoadAverage load_before, load_after;
  // Median time of a 4 KiB write + fdatasync in the work folder, before and
  // after the runs. naive pays about one of these a message and idem one a
  // batch, so idem / naive on SQLite follows this figure more than any other.
  double fsync_ms_before = 0, fsync_ms_after = 0;
};

MachineInfo ReadMachineInfo(const std::string& work_dir);
LoadAverage ReadLoadAverage();
// Median of `rounds` 4 KiB write + fdatasync calls on a scratch file in `dir`, ms (0 on failure).
double MeasureFsyncMs(const std::string& dir, int rounds = 30);
std::string UtcNow();  // 2026-11-29T09:41:00Z

nlohmann::json ToJson(const MachineInfo& m);

}  // namespace idem::bench
