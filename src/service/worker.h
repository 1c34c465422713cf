// Worker: one consumer thread of `idem run` — its own broker connection, store
// connection, optional fast filter and pipeline, for one consumer group,
// assembled by Consumer::Assemble with an AbandoningSource over the broker's
// source (which passes the source's capabilities through).
//
// Run() loops over Pipeline::RunOnce until Control::stop is set (then the batch
// in hand is finished, committed and settled before it returns) or, with
// until_idle, until a poll finds nothing. Batches that fail to commit or settle
// are logged and counted, and the loop goes on: the pipeline has already given
// their messages back or will see them again after the visibility timeout.
//
// Thread safety: Open on any thread; Run on exactly one.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "idem/consumer.h"
#include "ops/metrics.h"
#include "service/abandoning_source.h"
#include "service/config.h"
#include "service/control.h"
#include "service/json_log.h"

namespace idem::service {

// The pipeline options a consumer's configuration means.
PipelineOptions PipelineOptionsFor(const ConsumerConfig& consumer);

// The broker options a consumer's workers open their broker with, for the
// topics of `handlers`.
BrokerOptions BrokerOptionsFor(const ServiceConfig& config, const ConsumerConfig& consumer,
                               const std::vector<HandlerSpec>& handlers);

class Worker {
 public:
  // Opens the broker (only the handlers' topics), the store and the fast
  // filter, and registers `handlers`. Errors name the worker and what failed.
  static Result<std::unique_ptr<Worker>> Open(const ServiceConfig& config, const ConsumerConfig& consumer,
                                              std::vector<HandlerSpec> handlers, int index, const Control* control,
                                              Env* env, JsonLog* log, ops::ServiceMetrics* metrics);

  void Run(bool until_idle);

  const std::string& name() const { return name_; }  // "payments#1"
  const DecisionCounters& counters() const { return consumer_->pipeline().counters(); }
  int64_t failed_batches() const { return failed_batches_; }

 private:
  Worker() = default;
  void Report(const BatchReport& r);
  void OnDecision(const Decision& d);
  void NoteFilterState(const BatchReport& r);

  std::string name_;
  std::string group_;
  const Control* control_ = nullptr;
  JsonLog* log_ = nullptr;
  ops::ServiceMetrics* metrics_ = nullptr;
  Env* env_ = nullptr;
  bool log_decisions_ = true;
  std::string filter_policy_;        // "closed" / "open"; empty without a fast filter
  bool filter_degraded_ = false;     // a decision of the current batch met an unreachable filter
  bool filter_was_degraded_ = false; // ... of the last batch that polled, for the log's state changes
  std::unique_ptr<Consumer> consumer_;  // broker, store, fast filter, source_ over the broker, pipeline
  AbandoningSource* source_ = nullptr;   // owned by consumer_: the decorator the pipeline polls
  int64_t failed_batches_ = 0;
  std::atomic<int64_t>* in_flight_since_ms_ = nullptr;  // ServiceMetrics::InFlightClock
};

}  // namespace idem::service
