// OutboxRelayRunner: the outbox relay (ops/outbox/relay.h) inside `idem run`,
// when the configuration says [outbox] relay = true. It runs on a thread of its
// own with its own store and broker connections (a Store or Broker belongs to
// one thread), publishing to the service's broker what the handlers emitted.
//
// Run() steps the relay until Control::stop or abandon is set — the step in
// hand finishes first, so a stop never leaves more than that step's claimed
// rows to be published again after claim_ms — and waits [outbox] interval_ms
// (in short slices, so a stop is seen at once) after a step that found nothing
// due or failed. A failed step (the store or broker is unreachable) is logged
// once when it starts failing and once when it recovers, and counted; the
// rows it claimed are due again after claim_ms, so nothing is lost.
//
// /readyz reports the relay's last error (LastError) without turning the
// service unready: consumption goes on, and the rows wait safely in the outbox.
//
// Thread safety: Open on any thread; Run on exactly one; LastError on any.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "idem/broker.h"
#include "idem/store.h"
#include "ops/metrics.h"
#include "ops/outbox/relay.h"
#include "service/config.h"
#include "service/control.h"
#include "service/json_log.h"

namespace idem::service {

// The relay options an [outbox] table means.
outbox::RelayOptions RelayOptionsFor(const OutboxConfig& config);

class OutboxRelayRunner {
 public:
  // Opens the relay's store and broker connections. Errors say which failed.
  static Result<std::unique_ptr<OutboxRelayRunner>> Open(const ServiceConfig& config, const Control* control,
                                                         Env* env, JsonLog* log, ops::ServiceMetrics* metrics);

  // With `until_idle`, also ends once a step finds nothing due after
  // `workers_done` said every consumer worker has ended (batch runs, tests).
  void Run(bool until_idle, const std::function<bool()>& workers_done);

  // "" while the last step worked; else why it failed. Any thread.
  std::string LastError() const;

 private:
  void SetLastError(std::string error);
  OutboxRelayRunner() = default;
  bool Stopping() const { return control_->stop.load() || control_->abandon.load(); }
  void Pause();  // interval_ms, or until a stop

  const Control* control_ = nullptr;
  Env* env_ = nullptr;
  JsonLog* log_ = nullptr;
  ops::ServiceMetrics* metrics_ = nullptr;
  int64_t interval_ms_ = 0;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Broker> broker_;
  std::optional<outbox::Relay> relay_;
  mutable std::mutex mu_;
  std::string last_error_;  // guarded by mu_
};

}  // namespace idem::service
