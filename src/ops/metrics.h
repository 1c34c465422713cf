// ServiceMetrics: what `idem run` exports on /metrics, in one prometheus-cpp
// registry, written in the Prometheus text format. Names follow Prometheus
// conventions: the idem_ prefix, base units (seconds), counters end in _total.
//
//   idem_messages_total{group,handler,outcome}         first, duplicate, filtered (a duplicate the
//                                                      fast filter caught), conflict, retried,
//                                                      dead_lettered, released, in_flight
//   idem_handler_duration_seconds{group,handler}       one handler run (histogram)
//   idem_batch_duration_seconds{group}                 one batch, poll to settle (histogram)
//   idem_batch_size_messages{group}                    messages per polled batch (histogram)
//   idem_batch_failures_total{group}                   batches that could not commit or settle
//   idem_dead_letter_messages                          dead-letter queue depth
//   idem_dead_letter_oldest_age_seconds                since the oldest dead letter last failed
//   idem_fast_filter_degraded{group,policy}            1 while the fast filter is unreachable
//   idem_up{dependency}                                1 when the broker / store answered the last probe
//   idem_records_swept_total                           consumption records deleted by retention
//   idem_outbox_pending_messages                       outbox rows waiting to be published ([outbox] relay)
//   idem_outbox_oldest_pending_age_seconds             since the oldest of them was emitted (0 when none)
//   idem_outbox_dead_messages                          outbox rows the relay gave up on (DEAD)
//   idem_outbox_published_total                        outbox rows published and confirmed
//   idem_outbox_publish_failures_total                 failed publish attempts (the row backs off)
//   idem_outbox_dead_lettered_total                    rows that failed their last attempt (now DEAD)
//   idem_outbox_relay_failures_total                   relay steps that failed (store or broker error)
//
// The rules in prometheus/idem_alerts.yml alert on these.
// Thread safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "idem/decision.h"
#include "idem/pipeline.h"

namespace prometheus {
class Registry;
}

namespace idem::ops {

class ServiceMetrics {
 public:
  ServiceMetrics();
  ~ServiceMetrics();

  void OnDecision(const Decision& d);
  void OnHandler(std::string_view group, std::string_view handler, double seconds);
  // A polled batch (or a failed poll); `seconds` from poll to settle.
  void OnBatch(std::string_view group, const BatchReport& r, double seconds, bool filter_degraded,
               std::string_view filter_policy);
  void SetDeadLetters(int64_t depth, double oldest_age_seconds);
  void SetUp(std::string_view dependency, bool up);  // "broker", "store"
  void OnSweep(int64_t deleted);
  // The outbox relay: one step's rows by what happened to them; a step that failed.
  void OnOutboxStep(int64_t published, int64_t failed, int64_t dead);
  void OnOutboxRelayFailure();
  void SetOutbox(int64_t pending, double oldest_pending_age_seconds, int64_t dead);

  // The text exposition of every metric.
  std::string Scrape() const;

 private:
  struct Families;
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<Families> f_;
};

// The outcome label of a decision.
const char* OutcomeLabel(const Decision& d);

}  // namespace idem::ops
