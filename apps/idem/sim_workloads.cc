#include "sim_workloads.h"

#include "commands.h"
#include "sim/ledger_workload.h"
#include "sim/payments_workload.h"

namespace idem::cli {

std::vector<std::string> SimWorkloads() { return {"payments", "ledger"}; }

std::string SimWorkloadNames() { return "payments or ledger"; }

sim::WorkloadFactory SimWorkloadFactory(const std::string& name) {
  if (name == "ledger") return [] { return std::make_unique<sim::LedgerWorkload>(); };
  if (name == "payments") return [] { return std::make_unique<sim::PaymentsWorkload>(); };
  throw CliError("unknown --workload '" + name + "': use " + SimWorkloadNames(), 2);
}

}  // namespace idem::cli
