// One simulated run: the real Pipeline, guard and handlers over SimBroker,
// FaultyStore(real SQLite in memory) and SimRedis, all driven by one seed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/faults.h"
#include "sim/sim_broker.h"
#include "sim/workload.h"

namespace idem::sim {

struct SimOptions {
  uint64_t seed = 1;
  std::optional<DeliveryModel> model;  // default: drawn from the seed
  std::optional<bool> redis;           // default: drawn from the seed
  // Kafka model: retries in place holding their key (the adapter's default) or
  // through retry topics; default: drawn from the seed.
  std::optional<bool> ordered_retries;
  // Check each key's order in a Kafka run with retry topics too, to show the
  // checker sees what retry topics do to it (only ordered runs promise it).
  bool check_key_order = false;
  bool protection = true;              // false: the guard is off, everything else the same
  int events = 150;                    // business events published per run
  int consumers = 2;
  bool keep_trace = false;             // keep every decision line (for --trace)
  std::string workload;                // named in the replay command; empty: the default one
};

struct SimResult {
  uint64_t seed = 0;
  DeliveryModel model = DeliveryModel::kRabbit;
  bool redis = false;
  bool ordered_retries = false;  // a Kafka run whose retries held their key
  bool drained = false;
  CheckReport report;
  Coverage coverage;
  uint64_t digest = 0;  // hash of every decision, in order: equal seeds give equal digests
  int64_t deliveries = 0, first = 0, duplicate = 0, conflict = 0, retried = 0, parked = 0, released = 0;
  int64_t crashes = 0;
  // Workloads with an outbox chain: how often each of the relay's faults fired (every one listed).
  std::map<std::string, int64_t> relay_faults;
  int64_t sim_time_ms = 0;
  std::vector<std::string> trace;
};

using WorkloadFactory = std::function<std::unique_ptr<Workload>()>;

SimResult RunSimulation(const SimOptions& options, const WorkloadFactory& workload);

// "idem sim --seed S [--model M] [--redis on|off] [--protection off] [--retry-mode M]"
std::string ReplayCommand(const SimResult& r, const SimOptions& options);

}  // namespace idem::sim
