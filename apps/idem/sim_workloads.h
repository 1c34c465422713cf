// The businesses `idem sim` can run, by name.
#pragma once

#include <string>

#include "sim/simulation.h"

namespace idem::cli {

inline constexpr const char* kDefaultSimWorkload = "payments";
std::string SimWorkloadNames();
// Throws CliError for an unknown name.
sim::WorkloadFactory SimWorkloadFactory(const std::string& name);

}  // namespace idem::cli
