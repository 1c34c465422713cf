// What the two drivers of a scenario share (scenario_run.cc on the embedded
// queue with a simulated clock, broker_run.cc on a real broker in real time):
// the run's store, its consumers, and the report measured from what it left.
#pragma once

#include <memory>
#include <string>

#include "idem/broker.h"
#include "idem/store.h"
#include "demo/consumer.h"
#include "demo/simulated_downstream.h"
#include "demo/faults.h"
#include "demo/scenario_run.h"

namespace idem::demo::detail {

// The run's store: store.db in RunOptions::dir, or its own schema on PostgreSQL.
Result<std::unique_ptr<Store>> OpenRunStore(const RunOptions& o, Env* env);
// Creates the store afresh (a PostgreSQL schema is dropped first) with the
// schema variant of the mode and the workload's accounts, stock and orders.
Status PrepareStore(const Workload& w, const RunOptions& o, Env* env);

// What every consumer of one run shares.
struct ConsumerParts {
  Env* env = nullptr;  // the scenario clock the handlers and the pipeline see
  SimulatedDownstream* downstream = nullptr;
  FaultInjector* faults = nullptr;
  DeliveryLog* log = nullptr;
  std::string run_id;  // NewRunId(): keeps this run's Redis keys apart from any earlier run's
  int64_t max_linger_ms = 0;  // PipelineOptions::max_linger_ms of idem consumers
  // idem consumers: pay.success emits its points grant and notice through the
  // outbox (payments::ServiceOptions::downstream_via_outbox); the driver then
  // relays and applies them (DownstreamStage) before it measures.
  bool downstream_via_outbox = false;
};
// Consumer `index` of the run: IdemConsumer (protection on) or NaiveConsumer,
// reading `queue` and writing its own connection to the run's store.
Result<std::unique_ptr<Consumer>> MakeConsumer(const RunOptions& o, std::unique_ptr<Broker> queue, size_t index,
                                               const ConsumerParts& parts);

// A fresh id for one run (from real randomness: seeded runs repeat their seeds).
std::string NewRunId(Env* wall);

// The broker message the producer sends for one publication of the workload.
Message PublicationMessage(const Workload& w, const Publication& p);

// Deliveries beyond the first of each business event, per retry attempt.
int64_t DuplicateDeliveries(const Workload& w, const DeliveryLog& log);

// Fills the report's damage and incident charge times from the store and the
// terminal queue of `queue`. Call after the consumers are closed.
Status MeasureInto(const Workload& w, const RunOptions& o, Env* env, Broker& queue, RunReport* report);

// RunScenario with RunOptions::broker_url set (broker_run.cc).
Result<RunReport> RunOnBroker(const Workload& workload, const RunOptions& options);

}  // namespace idem::demo::detail
