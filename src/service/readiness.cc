#include "service/readiness.h"

#include <algorithm>

#include "idem/store_access.h"
#include "ops/outbox/relay.h"

namespace idem::service {

Readiness::Readiness(const ServiceConfig& config, Env* env, ops::ServiceMetrics* metrics)
    : config_(config), env_(env), metrics_(metrics) {}

ReadinessReport Readiness::Check() {
  std::lock_guard<std::mutex> lock(mu_);
  ReadinessReport r;
  r.starting = starting_;
  ProbeBroker(&r);
  ProbeStore(&r);
  metrics_->SetUp("broker", r.broker_ok);
  metrics_->SetUp("store", r.store_ok);
  if (relay_) {
    const std::string error = relay_->LastError();
    r.outbox_relay = error.empty() ? "ok" : "last step failed (it retries every interval_ms): " + error;
  }
  return r;
}

void Readiness::ProbeBroker(ReadinessReport* r) {
  std::unique_ptr<Broker> broker;
  {
    BrokerOptions o;
    o.create_if_missing = false;  // a probe inspects; the workers created what they need
    o.visibility_timeout_ms = config_.visibility_timeout_ms;
    auto b = OpenBroker(config_.broker_url, o, env_);
    if (!b.ok()) {
      r->broker_error = "cannot open the broker: " + b.status().ToString();
      return;
    }
    broker = std::move(*b);
  }
  auto stats = broker->Stats();
  if (!stats.ok()) {
    r->broker_error = "the broker does not answer: " + stats.status().ToString();
    return;
  }
  r->broker_ok = true;
  // One group consumes everything the broker holds for this service, so what is
  // ready is its backlog. Several groups share an embedded queue by topic, and
  // the queue's count is not one group's.
  if (config_.consumers.size() == 1) metrics_->SetBacklog(config_.consumers[0].group, stats->ready);
  const double age_s = stats->oldest_dead_ms > 0 && stats->dead > 0
                           ? static_cast<double>(env_->NowMs() - stats->oldest_dead_ms) / 1000.0
                           : 0.0;
  metrics_->SetDeadLetters(stats->dead, age_s < 0 ? 0 : age_s);
}

void Readiness::ProbeStore(ReadinessReport* r) {
  // A probe inspects: a deleted store file stays deleted (and not ready).
  auto store = OpenStore(config_.store_url, env_, StoreAccess::kExisting);
  if (!store.ok()) {
    r->store_error = "cannot open the store: " + store.status().ToString();
    return;
  }
  // Reading a record needs the record table: a store whose schema is missing or
  // older than this build fails here, not on the first message.
  auto rec = (*store)->ReadRecord("idem-readiness-probe", "none");
  if (!rec.ok()) {
    r->store_error = "the store does not answer or its consumption-record table is not current: " +
                     rec.status().ToString();
    return;
  }
  r->store_ok = true;
  if (config_.outbox.relay) RefreshOutboxGauges(**store);
}

void Readiness::RefreshOutboxGauges(Store& store) {
  // The backlog is not a readiness matter (the relay retries by itself), so a
  // failed read keeps the last values; the alerts look at the gauges.
  auto stats = outbox::ReadOutboxStats(store, /*count_sent=*/false);
  if (!stats.ok()) return;
  const double age_s =
      stats->pending > 0 ? std::max(0.0, static_cast<double>(env_->NowMs() - stats->oldest_pending_ms) / 1000.0) : 0.0;
  metrics_->SetOutbox(stats->pending, age_s, stats->dead);
}

}  // namespace idem::service
