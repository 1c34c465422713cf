// Runs one workload end to end on the embedded default — a real SQLite store
// and a real embedded queue in `dir` — with protection on (IdemConsumer) or
// off (NaiveConsumer), then measures the result from the database.
//
// One thread drives everything on a simulated clock (sim::SimEnv): consumers take turns, a
// fault that needs a second consumer (stall, rebalance) hands the messages
// over by moving the clock past the visibility timeout, and when nothing is
// ready the clock moves on (see idle_step_ms) until the queue is empty.
// With RunOptions::broker_url the run goes to a real broker in real time
// instead (broker_run.cc); the store, the consumers and the measuring are the same.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "demo/simulated_downstream.h"
#include "demo/measure.h"
#include "demo/workload.h"

namespace idem::demo {

struct RunOptions {
  bool protection = true;                   // true: idem; false: the incident's naive consumer
  std::string dir;                          // REQUIRES: an existing folder without store.db / queue.db
  size_t batch_size = 50;                   // idem batch and naive prefetch; default 50
  int64_t visibility_timeout_ms = 30'000;   // the embedded queue's lease; default 30 s (the incident's)
  // While nothing is ready the clock moves on by idle_step_ms, doubling up to
  // max_idle_step_ms (a consumer's poll interval growing while the queue is
  // quiet); any progress resets it. Defaults 1 s and 16 s.
  int64_t idle_step_ms = 1'000;
  int64_t max_idle_step_ms = 16'000;
  // A run whose queue is not empty this long (simulated) after the last
  // publication, or a hand-over that takes this long, fails; default 6 h.
  int64_t max_drain_ms = 6LL * 3600 * 1000;
  // The store: "" = store.db in `dir` (SQLite, the embedded default); a
  // postgresql:// URL = that database, each run in its own schema `schema`,
  // dropped and created afresh. The queue stays the embedded one in `dir`.
  std::string store_url;
  std::string schema;  // REQUIRES with store_url: a plain identifier ([a-z0-9_]+)
  // A redis:// URL puts the Redis fast filter in front of the guard (idem runs
  // only), with keys prefixed by the schema or folder so runs never share them.
  std::string redis_url;
  // A broker URL runs the scenario on that broker in real time instead of on the
  // embedded queue with a simulated clock (see broker_run.cc). An amqp:// URL
  // gets a queue of the run's own, named after `schema` (or "idem_demo") and a
  // run id; the store stays as above. "" = the embedded queue in `dir`.
  std::string broker_url;
  // With broker_url: the scenario clock runs this many times faster than real
  // time, so a 30 s retry rung waits 0.3 s at 100; default 100.
  int64_t speedup = 100;
  Env* wall_clock = nullptr;                // measures wall and busy time only; default Env::Default()
  std::function<void(std::string_view)> service_log;  // the payments service's log lines; default none
};

struct RunReport {
  Damage damage;                     // measured from the store and the terminal queue
  int64_t published = 0;             // copies the producer handed to the broker
  int64_t deliveries = 0;            // copies the broker handed to consumers
  // Deliveries beyond the first of each business event (per retry attempt, so a
  // retry from idem's delay tier is not counted as a duplicate).
  int64_t duplicate_deliveries = 0;
  int64_t simulated_ms = 0;          // simulated time from start to drained
  double wall_seconds = 0;           // real time from the first poll until the queue was empty
  double busy_seconds = 0;           // real time of the polling rounds that received messages
  DownstreamStats downstream;        // what the bank and the notice service saw
  std::vector<int64_t> incident_charge_times_ms;  // ledger times of the incident payment's charges
  std::string broker_queue;          // with RunOptions::broker_url: the URL of the run's own queue
  // idem on the embedded queue: pay.success sent its points grants and notices
  // through the outbox, and the run relayed and applied them before measuring.
  bool downstream_via_outbox = false;

  // Deliveries per second of busy time: idle polling while the simulated clock
  // waits for delayed messages is not work, so it is left out.
  double MessagesPerSecond() const { return busy_seconds > 0 ? deliveries / busy_seconds : 0; }
};

Result<RunReport> RunScenario(const Workload& workload, const RunOptions& options);

}  // namespace idem::demo
