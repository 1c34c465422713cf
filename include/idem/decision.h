// Decisions: one structured record per message outcome, and the
// in-process counters of the same.
//
// Thread safety: a Decision is a plain value. DecisionName and DecisionToJson
// keep no state and may be called from any thread. DecisionCounters are atomic:
// the pipeline's thread counts, and any thread (a metrics exporter) may read
// them while it does.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace idem {

enum class DecisionKind {
  kFirst,      // first time: effects applied and committed
  kDuplicate,  // already applied (record SUCCEEDED, or a copy earlier in the same batch): acked, no effect
  kConflict,   // same key, different payload fingerprint: parked and reported
  kRetry,      // retryable failure: claim released, sent to the delay tier (rung, delay)
  kParked,     // permanent failure, bad input or attempts exhausted: terminal queue with reason
  kReleased,   // given back to the broker undecided (database unavailable, commit in doubt)
  kInFlight,   // another worker holds a live claim: held back until its lease ends
};

const char* DecisionName(DecisionKind k);

struct Decision {
  DecisionKind kind = DecisionKind::kFirst;
  int64_t at_ms = 0;
  std::string consumer_group;
  std::string topic;
  std::string key;         // idempotency key (business identity, never payload secrets)
  std::string message_id;  // broker id
  int attempt = 0;         // handler attempt number for this key (1-based)
  int delivery_count = 0;
  std::string reason;      // why (RETRY, PARKED, CONFLICT, RELEASED)
  int rung = 0;            // RETRY: ladder rung (1-based)
  int64_t delay_ms = 0;    // RETRY / RELEASED: delay before redelivery
  int64_t latency_us = 0;  // poll to commit
  int transaction_tries = 1;  // runs of the batch transaction behind this outcome (> 1 after a deadlock)
};

// Writes one JSON object per line. Never includes the payload.
std::string DecisionToJson(const Decision& d);

using DecisionSink = std::function<void(const Decision&)>;

// Counters of the same decisions; lock-free, read by metrics and the demo.
struct DecisionCounters {
  std::atomic<int64_t> received{0};
  std::atomic<int64_t> first{0};
  std::atomic<int64_t> duplicate{0};
  std::atomic<int64_t> conflict{0};
  std::atomic<int64_t> retried{0};
  std::atomic<int64_t> parked{0};
  std::atomic<int64_t> released{0};
  std::atomic<int64_t> in_flight{0};
  std::atomic<int64_t> filtered{0};       // duplicates caught by the fast filter (no database lookup)
  std::atomic<int64_t> passed_to_db{0};   // messages the fast filter let through to the database guard
  std::atomic<int64_t> degraded{0};       // decisions taken while the fast filter was unreachable
  std::atomic<int64_t> batches{0};
  std::atomic<int64_t> commit_failures{0};
  std::atomic<int64_t> transaction_retries{0};  // batch transactions rerun after a deadlock or serialization failure
  std::atomic<int64_t> careful_reruns{0};  // batches rerun with a savepoint per message after a message failed

  void Count(DecisionKind k);
  // duplicate / received, 0 when nothing was received.
  double DuplicateRatio() const;
};

}  // namespace idem
