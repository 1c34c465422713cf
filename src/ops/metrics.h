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
//   idem_batch_careful_reruns_total{group}             batches run again with a savepoint per message
//                                                      because a message failed in the first run
//   idem_last_progress_timestamp_seconds{group}        when a batch of the group last settled (Unix
//                                                      time; the start time until the first one)
//   idem_oldest_in_flight_age_seconds{group}           how long the oldest message a worker of the
//                                                      group holds has been held (0 when none)
//   idem_backlog_messages{group}                       messages waiting for the group, where the
//                                                      broker can tell (absent where it cannot)
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
// Every series of a configured group and handler exists from DeclareGroup on,
// at 0, so rates and alerts see the first message rather than start blind.
//
// The rules in prometheus/idem_alerts.yml alert on these.
// Thread safety: every method may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "idem/decision.h"
#include "idem/env.h"
#include "idem/pipeline.h"

namespace prometheus {
class Registry;
}

namespace idem::ops {

class ServiceMetrics {
 public:
  // `env` (default: the real clock) dates the progress and in-flight gauges.
  explicit ServiceMetrics(Env* env = nullptr);
  ~ServiceMetrics();

  // Exports every series of `group` and its `handlers` (topics) at 0 — each
  // outcome, the latency histograms — and starts its progress clock now.
  void DeclareGroup(std::string_view group, const std::vector<std::string>& handlers);
  // A batch of `group` settled (it polled something and committed and settled).
  void OnProgress(std::string_view group);
  // Messages waiting for `group` at the broker; a negative count (the broker
  // cannot tell) exports nothing.
  void SetBacklog(std::string_view group, int64_t messages);
  // One worker's in-flight clock: the worker stores Env::NowMs() when it takes
  // messages and 0 once it has settled them. The atomic lives as long as this
  // object; Scrape reads it, so a worker stuck inside a batch shows it.
  std::atomic<int64_t>* InFlightClock(std::string_view group);

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

  // The text exposition of every metric. Takes no lock a worker holds across
  // a batch, so it answers while a worker is stuck.
  std::string Scrape();

 private:
  struct Families;
  void RefreshInFlightAges();

  Env* env_;
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<Families> f_;
  std::mutex clocks_mu_;  // guards the list, not the atomics in it
  std::list<std::pair<std::string, std::atomic<int64_t>>> clocks_;  // group → since_ms; stable addresses
};

// The outcome label of a decision.
const char* OutcomeLabel(const Decision& d);

}  // namespace idem::ops
