// Readiness: whether this service can do its work now — the broker answers,
// the store answers and holds the consumption-record table (schema current).
// Probed on every /readyz and /metrics request over fresh connections of its
// own, never the workers' (a Broker or Store belongs to one thread): a probe
// sees the dependency as a new worker would, and readiness comes back by itself
// when the dependency does. Each probe also refreshes the dead-letter depth and
// age, the idem_up gauges and, with [outbox] relay = true, the outbox gauges.
//
// Thread safety: Check may be called from any thread (one probe at a time).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "idem/broker.h"
#include "idem/store.h"
#include "ops/metrics.h"
#include "service/config.h"
#include "service/outbox_relay_runner.h"

namespace idem::service {

struct ReadinessReport {
  bool broker_ok = false;
  bool store_ok = false;
  std::string broker_error;  // what failed and what to check; empty when ok
  std::string store_error;
  // With the relay in this process: "ok", or why its last step failed. Not part
  // of ready(): consumption goes on and the rows wait in the outbox. "" without it.
  std::string outbox_relay;
  // True while `idem run` is still opening the service (it may be waiting for
  // the store or the broker, up to startup_timeout_ms): never ready then.
  bool starting = false;
  bool ready() const { return broker_ok && store_ok && !starting; }
};

class Readiness {
 public:
  Readiness(const ServiceConfig& config, Env* env, ops::ServiceMetrics* metrics);
  ReadinessReport Check();
  // The relay whose health Check reports; it must outlive this object.
  void WatchRelay(const OutboxRelayRunner* relay) {
    std::lock_guard<std::mutex> lock(mu_);  // requests may be served already (start-up wait)
    relay_ = relay;
  }
  // Whether the service is still starting (see ReadinessReport::starting).
  void SetStarting(bool starting) { starting_ = starting; }

 private:
  void ProbeBroker(ReadinessReport* r);
  void ProbeStore(ReadinessReport* r);
  void RefreshOutboxGauges(Store& store);

  const ServiceConfig& config_;
  Env* env_;
  ops::ServiceMetrics* metrics_;
  const OutboxRelayRunner* relay_ = nullptr;
  std::atomic<bool> starting_{false};
  std::mutex mu_;
};

}  // namespace idem::service
