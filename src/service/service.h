// Service: everything `idem run` starts from one configuration — every worker
// of every consumer group — and the shutdown sequence around them.
//
//   Open      checks the handler names against the registry, prepares the
//             handler sets' tables, runs [store] setup_sql, checks the
//             declarative steps against the store (declared_schema_check.h)
//             and each group's broker (broker_check.h), opens every worker's
//             connections. Nothing runs and no message is taken yet; any error
//             names the file position or the worker.
//   Start     one thread per worker, and one for the outbox relay when
//             [outbox] relay = true.
//   Stop      first signal: poll no more, finish and settle the current batch.
//   Abandon   second signal: settle nothing more, give held deliveries back.
//
// Thread safety: Open, Start, WaitFor and the destructor on one thread; Stop
// and Abandon from any thread (they only set flags).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "ops/sweeper.h"
#include "service/config.h"
#include "service/control.h"
#include "service/handler_registry.h"
#include "service/json_log.h"
#include "service/outbox_relay_runner.h"
#include "service/worker.h"

namespace idem::service {

// The handlers a consumer runs — its registered handler sets, then its
// declarative handlers — made fresh for one worker. InvalidArgument at the
// file position of a name the registry does not know.
Result<std::vector<HandlerSpec>> HandlersFor(const ServiceConfig& config, const ConsumerConfig& consumer,
                                             const HandlerRegistry& registry, Env* env);

// What `idem run --check` verifies beyond the file's syntax, without opening
// anything: handler names, one handler per topic and group, the retry policy,
// the Redis TTL against the retry window.
Status CheckConfig(const ServiceConfig& config, const HandlerRegistry& registry);

// The longest time a copy of a message can still arrive after its first
// delivery, over every consumer: all its retry delays + its lease + the fast
// filter's TTL. Retention must keep records at least this long.
int64_t LongestRedeliveryWindowMs(const ServiceConfig& config);

// The sweeper options a [retention] table means.
ops::SweepOptions SweepOptionsFor(const RetentionConfig& retention);

class Service {
 public:
  // `metrics` must outlive the service.
  static Result<std::unique_ptr<Service>> Open(const ServiceConfig& config, const HandlerRegistry& registry,
                                               Env* env, JsonLog* log, ops::ServiceMetrics* metrics);
  ~Service();  // joins the threads that ended; REQUIRES: WaitFor returned true, or Start never ran

  // `until_idle`: each worker ends once a poll finds nothing (batch jobs, tests);
  // the relay once the workers have ended and a step finds nothing due.
  void Start(bool until_idle);
  void Stop() { control_.stop = true; }
  void Abandon() { control_.abandon = true; }
  // True when every worker has ended, waiting at most `timeout_ms`.
  bool WaitFor(int64_t timeout_ms);
  size_t running() const;  // workers and relay
  // Retention: one bounded sweep step when due (ops/sweeper.h), logged and
  // counted. Called by the supervising thread between its waits.
  void MaintainIfDue();

  const std::vector<std::unique_ptr<Worker>>& workers() const { return workers_; }
  const OutboxRelayRunner* relay() const { return relay_.get(); }  // null without [outbox] relay = true

 private:
  Service() = default;
  Control control_;
  JsonLog* log_ = nullptr;
  Env* env_ = nullptr;
  ops::ServiceMetrics* metrics_ = nullptr;
  std::unique_ptr<Store> sweep_store_;  // the sweeper's own connection
  std::optional<ops::Sweeper> sweeper_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::unique_ptr<OutboxRelayRunner> relay_;  // null unless [outbox] relay = true
  std::vector<std::thread> threads_;
  mutable std::mutex mu_;
  std::condition_variable done_cv_;
  size_t running_ = 0;
};

}  // namespace idem::service
