#include "service/outbox_relay_runner.h"

#include <algorithm>

namespace idem::service {

outbox::RelayOptions RelayOptionsFor(const OutboxConfig& config) {
  outbox::RelayOptions o;
  o.batch_size = config.batch;
  o.max_attempts = config.max_attempts;
  o.claim_ms = config.claim_ms;
  o.per_key_order = config.per_key_order;
  return o;
}

Result<std::unique_ptr<OutboxRelayRunner>> OutboxRelayRunner::Open(const ServiceConfig& config,
                                                                   const Control* control, Env* env, JsonLog* log,
                                                                   ops::ServiceMetrics* metrics) {
  std::unique_ptr<OutboxRelayRunner> r(new OutboxRelayRunner());
  r->control_ = control;
  r->env_ = env;
  r->log_ = log;
  r->metrics_ = metrics;
  r->interval_ms_ = config.outbox.interval_ms;
  auto store = OpenStore(config.store_url, env, StoreAccessOf(config));
  if (!store.ok()) return Status::Unavailable("outbox relay: cannot open the store: " + store.status().ToString());
  r->store_ = std::move(*store);
  BrokerOptions bo;  // a publisher: it creates what it publishes to
  bo.visibility_timeout_ms = config.visibility_timeout_ms;
  auto broker = OpenBroker(config.broker_url, bo, env);
  if (!broker.ok()) return Status::Unavailable("outbox relay: cannot open the broker: " + broker.status().ToString());
  r->broker_ = std::move(*broker);
  r->relay_.emplace(*r->store_, r->broker_->publisher(), RelayOptionsFor(config.outbox));
  return r;
}

void OutboxRelayRunner::Pause() {
  constexpr int64_t kSliceMs = 50;  // how soon a stop is seen while waiting
  for (int64_t left = interval_ms_; left > 0 && !Stopping(); left -= kSliceMs)
    env_->SleepMs(std::min(left, kSliceMs));
}

void OutboxRelayRunner::Run(bool until_idle, const std::function<bool()>& workers_done) {
  log_->Info("outbox_relay_started", {{"interval_ms", interval_ms_}});
  outbox::RelayStep total;
  bool failing = false;
  std::string why = "stop requested";
  while (!Stopping()) {
    // Read before the step: a worker that ended before it emitted nothing the step missed.
    const bool workers_ended = until_idle && workers_done();
    auto step = relay_->RelayOnce(env_->NowMs());
    if (!step.ok()) {
      metrics_->OnOutboxRelayFailure();
      SetLastError(step.status().ToString());
      if (!failing)
        log_->Error("outbox_relay_failed",
                    {{"error", step.status().ToString()},
                     {"effect", "nothing is lost: claimed rows are due again after claim_ms; retrying every interval_ms"}});
      failing = true;
      Pause();
      continue;
    }
    if (failing) {
      log_->Info("outbox_relay_recovered", {{"published", step->published}});
      SetLastError("");
    }
    failing = false;
    metrics_->OnOutboxStep(step->published, step->failed, step->dead);
    total.published += step->published;
    total.failed += step->failed;
    total.dead += step->dead;
    if (step->published + step->failed + step->dead + step->cleaned > 0)
      log_->Info("outbox_relay", {{"published", step->published},
                                  {"failed", step->failed},
                                  {"dead", step->dead},
                                  {"cleaned", step->cleaned}});
    if (step->claimed > 0) continue;
    if (workers_ended) {
      why = "idle";
      break;
    }
    Pause();
  }
  log_->Info("outbox_relay_stopped", {{"reason", why},
                                      {"published", total.published},
                                      {"failed", total.failed},
                                      {"dead", total.dead}});
}

std::string OutboxRelayRunner::LastError() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_error_;
}

void OutboxRelayRunner::SetLastError(std::string error) {
  std::lock_guard<std::mutex> lock(mu_);
  last_error_ = std::move(error);
}

}  // namespace idem::service
