// RunSpec and RunResult as JSON: how a child process hands its result back,
// and the per-run part of `idem bench --json`.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/run_spec.h"

namespace idem::bench {

nlohmann::json ToJson(const RunSpec& spec);
nlohmann::json ToJson(const RunResult& result);
// Reads what ToJson wrote; fields it lacks keep their defaults.
RunResult RunResultFromJson(const nlohmann::json& j);

}  // namespace idem::bench
