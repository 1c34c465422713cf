// Rendering of `idem demo` results: the table a person reads at a glance, and
// the JSON a script reads. Every number comes from a RunReport, which measured
// it from the run's database and terminal queue.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "demo/scenario_run.h"
#include "demo/workload.h"

namespace idem::cli {

struct DemoRow {
  const demo::ScenarioInfo* scenario = nullptr;
  demo::RunReport off;   // the incident's naive consumer
  demo::RunReport on;    // the payments service behind idem
};

struct DemoSummary {
  uint64_t seed = 0;
  size_t messages = 0;
  std::string kept_in;  // folder with the databases, or "" when they were removed
  std::string setup = "a real SQLite store and embedded queue";  // what the runs ran on
  std::vector<DemoRow> rows;
  // idem showed no damage and blocked nothing in any scenario.
  bool IdemClean() const;
  // The naive consumer charged some payment twice in some scenario.
  bool OffShowsDamage() const;
};

std::string RenderTable(const DemoSummary& s);
nlohmann::json RenderJson(const DemoSummary& s);

}  // namespace idem::cli
