#include "sim_workloads.h"

#include "commands.h"
#include "sim/ledger_workload.h"

namespace idem::cli {

std::string SimWorkloadNames() { return "ledger"; }

sim::WorkloadFactory SimWorkloadFactory(const std::string& name) {
  if (name == "ledger") return [] { return std::make_unique<sim::LedgerWorkload>(); };
  throw CliError("unknown --workload '" + name + "': use " + SimWorkloadNames(), 2);
}

}  // namespace idem::cli
