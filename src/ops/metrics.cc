#include "ops/metrics.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace idem::ops {

using prometheus::Histogram;

struct ServiceMetrics::Families {
  prometheus::Family<prometheus::Counter>* messages;
  prometheus::Family<prometheus::Histogram>* handler_seconds;
  prometheus::Family<prometheus::Histogram>* batch_seconds;
  prometheus::Family<prometheus::Histogram>* batch_size;
  prometheus::Family<prometheus::Counter>* batch_failures;
  prometheus::Family<prometheus::Counter>* careful_reruns;
  prometheus::Family<prometheus::Gauge>* last_progress;
  prometheus::Family<prometheus::Gauge>* in_flight_age;
  prometheus::Family<prometheus::Gauge>* backlog;
  prometheus::Gauge* dead_letters;
  prometheus::Gauge* dead_letter_age;
  prometheus::Family<prometheus::Gauge>* filter_degraded;
  prometheus::Family<prometheus::Gauge>* up;
  prometheus::Counter* swept;
  prometheus::Gauge* outbox_pending;
  prometheus::Gauge* outbox_oldest_age;
  prometheus::Gauge* outbox_dead;
  prometheus::Counter* outbox_published;
  prometheus::Counter* outbox_failures;
  prometheus::Counter* outbox_dead_lettered;
  prometheus::Counter* outbox_relay_failures;
};

namespace {

// 1 ms … 30 s: a handler call or a batch transaction.
const Histogram::BucketBoundaries kSeconds{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                           0.25,  0.5,    1,     2.5,  5,     10,   30};
const Histogram::BucketBoundaries kSizes{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000, 10000};

// Every value OutcomeLabel returns.
const char* const kOutcomes[] = {"first",         "duplicate", "filtered", "conflict",
                                 "retried",       "dead_lettered", "released", "in_flight"};

}  // namespace

const char* OutcomeLabel(const Decision& d) {
  switch (d.kind) {
    case DecisionKind::kFirst: return "first";
    case DecisionKind::kDuplicate:
      // The pipeline marks what the fast filter answered without the database.
      return d.reason.find("(fast filter)") != std::string::npos ? "filtered" : "duplicate";
    case DecisionKind::kConflict: return "conflict";
    case DecisionKind::kRetry: return "retried";
    case DecisionKind::kParked: return "dead_lettered";
    case DecisionKind::kReleased: return "released";
    case DecisionKind::kInFlight: return "in_flight";
  }
  return "unknown";
}

ServiceMetrics::ServiceMetrics(Env* env)
    : env_(env ? env : Env::Default()), registry_(std::make_shared<prometheus::Registry>()), f_(new Families()) {
  prometheus::Registry& r = *registry_;
  f_->messages = &prometheus::BuildCounter()
                      .Name("idem_messages_total")
                      .Help("Messages by outcome, per consumer group and handler (topic)")
                      .Register(r);
  f_->handler_seconds = &prometheus::BuildHistogram()
                             .Name("idem_handler_duration_seconds")
                             .Help("Time one handler run took, in seconds")
                             .Register(r);
  f_->batch_seconds = &prometheus::BuildHistogram()
                           .Name("idem_batch_duration_seconds")
                           .Help("Time one batch took from poll to settle, in seconds")
                           .Register(r);
  f_->batch_size = &prometheus::BuildHistogram()
                        .Name("idem_batch_size_messages")
                        .Help("Messages per polled batch")
                        .Register(r);
  f_->batch_failures = &prometheus::BuildCounter()
                            .Name("idem_batch_failures_total")
                            .Help("Batches that could not be committed or settled (logged as batch_failed)")
                            .Register(r);
  f_->careful_reruns = &prometheus::BuildCounter()
                            .Name("idem_batch_careful_reruns_total")
                            .Help("Batches run again with a savepoint per message because a message failed in the "
                                  "first run, which has none")
                            .Register(r);
  f_->last_progress = &prometheus::BuildGauge()
                           .Name("idem_last_progress_timestamp_seconds")
                           .Help("Unix time when a batch of the group last settled (the start time until one has)")
                           .Register(r);
  f_->in_flight_age = &prometheus::BuildGauge()
                           .Name("idem_oldest_in_flight_age_seconds")
                           .Help("Seconds the oldest message a worker of the group holds has been held (0 when none)")
                           .Register(r);
  f_->backlog = &prometheus::BuildGauge()
                     .Name("idem_backlog_messages")
                     .Help("Messages waiting for the group at the broker (ready to deliver; Kafka: the lag)")
                     .Register(r);
  f_->dead_letters = &prometheus::BuildGauge()
                          .Name("idem_dead_letter_messages")
                          .Help("Messages in the dead-letter queue")
                          .Register(r)
                          .Add({});
  f_->dead_letter_age = &prometheus::BuildGauge()
                             .Name("idem_dead_letter_oldest_age_seconds")
                             .Help("Seconds since the oldest dead letter last failed (0 when empty)")
                             .Register(r)
                             .Add({});
  f_->filter_degraded = &prometheus::BuildGauge()
                             .Name("idem_fast_filter_degraded")
                             .Help("1 while the fast filter is unreachable and its outage policy applies")
                             .Register(r);
  f_->up = &prometheus::BuildGauge()
                .Name("idem_up")
                .Help("1 when the dependency answered the last readiness probe")
                .Register(r);
  f_->swept = &prometheus::BuildCounter()
                   .Name("idem_records_swept_total")
                   .Help("Consumption records deleted by retention")
                   .Register(r)
                   .Add({});
  auto gauge = [&r](const char* name, const char* help) {
    return &prometheus::BuildGauge().Name(name).Help(help).Register(r).Add({});
  };
  auto counter = [&r](const char* name, const char* help) {
    return &prometheus::BuildCounter().Name(name).Help(help).Register(r).Add({});
  };
  f_->outbox_pending = gauge("idem_outbox_pending_messages", "Outbox rows waiting to be published (PENDING)");
  f_->outbox_oldest_age = gauge("idem_outbox_oldest_pending_age_seconds",
                                "Seconds since the oldest PENDING outbox row was emitted (0 when none)");
  f_->outbox_dead = gauge("idem_outbox_dead_messages", "Outbox rows the relay gave up on (DEAD)");
  f_->outbox_published = counter("idem_outbox_published_total", "Outbox rows published and confirmed by the broker");
  f_->outbox_failures =
      counter("idem_outbox_publish_failures_total", "Failed outbox publish attempts (the row backs off and is retried)");
  f_->outbox_dead_lettered =
      counter("idem_outbox_dead_lettered_total", "Outbox rows that failed their last publish attempt (now DEAD)");
  f_->outbox_relay_failures = counter("idem_outbox_relay_failures_total",
                                      "Outbox relay steps that failed on a store or broker error (logged)");
}

ServiceMetrics::~ServiceMetrics() = default;

void ServiceMetrics::DeclareGroup(std::string_view group, const std::vector<std::string>& handlers) {
  const std::string g(group);
  for (const std::string& h : handlers) {
    for (const char* outcome : kOutcomes) f_->messages->Add({{"group", g}, {"handler", h}, {"outcome", outcome}});
    f_->handler_seconds->Add({{"group", g}, {"handler", h}}, kSeconds);
  }
  f_->batch_seconds->Add({{"group", g}}, kSeconds);
  f_->batch_size->Add({{"group", g}}, kSizes);
  f_->batch_failures->Add({{"group", g}});
  f_->careful_reruns->Add({{"group", g}});
  f_->in_flight_age->Add({{"group", g}});
  prometheus::Gauge& progress = f_->last_progress->Add({{"group", g}});
  if (progress.Value() == 0) progress.Set(static_cast<double>(env_->NowMs()) / 1000.0);
}

void ServiceMetrics::OnProgress(std::string_view group) {
  f_->last_progress->Add({{"group", std::string(group)}}).Set(static_cast<double>(env_->NowMs()) / 1000.0);
}

void ServiceMetrics::SetBacklog(std::string_view group, int64_t messages) {
  if (messages < 0) return;
  f_->backlog->Add({{"group", std::string(group)}}).Set(static_cast<double>(messages));
}

std::atomic<int64_t>* ServiceMetrics::InFlightClock(std::string_view group) {
  std::lock_guard<std::mutex> lock(clocks_mu_);
  clocks_.emplace_back(std::piecewise_construct, std::forward_as_tuple(group), std::forward_as_tuple(0));
  f_->in_flight_age->Add({{"group", std::string(group)}});
  return &clocks_.back().second;
}

void ServiceMetrics::RefreshInFlightAges() {
  const int64_t now = env_->NowMs();
  std::map<std::string, int64_t> oldest;  // group → the earliest since_ms of its workers (0: none held)
  {
    std::lock_guard<std::mutex> lock(clocks_mu_);
    for (const auto& [group, clock] : clocks_) {
      const int64_t since = clock.load();
      int64_t& o = oldest[group];
      if (since > 0 && (o == 0 || since < o)) o = since;
    }
  }
  for (const auto& [group, since] : oldest)
    f_->in_flight_age->Add({{"group", group}}).Set(since > 0 ? std::max<int64_t>(0, now - since) / 1000.0 : 0.0);
}

void ServiceMetrics::OnDecision(const Decision& d) {
  f_->messages->Add({{"group", d.consumer_group}, {"handler", d.topic}, {"outcome", OutcomeLabel(d)}}).Increment();
}

void ServiceMetrics::OnHandler(std::string_view group, std::string_view handler, double seconds) {
  f_->handler_seconds->Add({{"group", std::string(group)}, {"handler", std::string(handler)}}, kSeconds).Observe(seconds);
}

void ServiceMetrics::OnBatch(std::string_view group, const BatchReport& r, double seconds, bool filter_degraded,
                             std::string_view filter_policy) {
  const prometheus::Labels g{{"group", std::string(group)}};
  if (!r.status.ok()) f_->batch_failures->Add(g).Increment();
  if (r.careful_reruns > 0) f_->careful_reruns->Add(g).Increment(static_cast<double>(r.careful_reruns));
  if (r.polled > 0) {
    f_->batch_seconds->Add(g, kSeconds).Observe(seconds);
    f_->batch_size->Add(g, kSizes).Observe(static_cast<double>(r.polled));
  }
  if (!filter_policy.empty())
    f_->filter_degraded->Add({{"group", std::string(group)}, {"policy", std::string(filter_policy)}})
        .Set(filter_degraded ? 1 : 0);
}

void ServiceMetrics::SetDeadLetters(int64_t depth, double oldest_age_seconds) {
  f_->dead_letters->Set(static_cast<double>(depth));
  f_->dead_letter_age->Set(oldest_age_seconds);
}

void ServiceMetrics::SetUp(std::string_view dependency, bool up) {
  f_->up->Add({{"dependency", std::string(dependency)}}).Set(up ? 1 : 0);
}

void ServiceMetrics::OnSweep(int64_t deleted) { f_->swept->Increment(static_cast<double>(deleted)); }

void ServiceMetrics::OnOutboxStep(int64_t published, int64_t failed, int64_t dead) {
  f_->outbox_published->Increment(static_cast<double>(published));
  f_->outbox_failures->Increment(static_cast<double>(failed + dead));
  f_->outbox_dead_lettered->Increment(static_cast<double>(dead));
}

void ServiceMetrics::OnOutboxRelayFailure() { f_->outbox_relay_failures->Increment(); }

void ServiceMetrics::SetOutbox(int64_t pending, double oldest_pending_age_seconds, int64_t dead) {
  f_->outbox_pending->Set(static_cast<double>(pending));
  f_->outbox_oldest_age->Set(oldest_pending_age_seconds);
  f_->outbox_dead->Set(static_cast<double>(dead));
}

std::string ServiceMetrics::Scrape() {
  RefreshInFlightAges();
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace idem::ops
