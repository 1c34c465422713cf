// The businesses `idem sim` can run, by name.
#pragma once

#include <string>
#include <vector>

#include "sim/simulation.h"

namespace idem::cli {

inline constexpr const char* kDefaultSimWorkload = "payments";
std::vector<std::string> SimWorkloads();
std::string SimWorkloadNames();  // "payments, ledger or chain", for help texts
// Throws CliError for an unknown name.
sim::WorkloadFactory SimWorkloadFactory(const std::string& name);

}  // namespace idem::cli
