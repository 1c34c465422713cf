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
};

MachineInfo ReadMachineInfo(const std::string& work_dir);
LoadAverage ReadLoadAverage();
std::string UtcNow();  // 2026-11-29T09:41:00Z

nlohmann::json ToJson(const MachineInfo& m);

}  // namespace idem::bench
