// How the simulator's tests print a failing seed: every violation and the replay command.
#pragma once

#include <sstream>
#include <string>

#include "sim/simulation.h"

namespace idem::sim {

inline std::string Describe(const SimResult& r, const SimOptions& o) {
  std::ostringstream os;
  os << "seed " << r.seed << " (" << ModelName(r.model) << (r.redis ? ", redis" : "") << "):";
  for (const auto& [checker, v] : r.report.violations)
    for (const std::string& what : v) os << "\n  " << checker << ": " << what;
  os << "\n  replay: " << ReplayCommand(r, o);
  return os.str();
}

}  // namespace idem::sim
