#include "sim_workloads.h"

#include "commands.h"
#include "sim/ledger_workload.h"
#include "sim/outbox_chain_workload.h"
#include "sim/payments_workload.h"

namespace idem::cli {

std::vector<std::string> SimWorkloads() { return {"payments", "ledger", "chain"}; }

std::string SimWorkloadNames() { return "payments, ledger or chain"; }

sim::WorkloadFactory SimWorkloadFactory(const std::string& name) {
  if (name == "ledger") return [] { return std::make_unique<sim::LedgerWorkload>(); };
  if (name == "payments") return [] { return std::make_unique<sim::PaymentsWorkload>(); };
  if (name == "chain") return [] { return std::make_unique<sim::ChainWorkload>(); };
  throw CliError("unknown --workload '" + name + "': use " + SimWorkloadNames(), 2);
}

}  // namespace idem::cli
