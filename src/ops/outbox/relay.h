// The outbox relay: publishes the rows handlers emitted (HandlerContext::Emit)
// and marks them sent once the broker confirmed them.
// User guide: docs/outbox.md.
//
// Delivery is at least once: a relay that dies between the confirm and the mark
// publishes the row again once its claim expires, under the same business key
// and message id, and the downstream consumer's guard absorbs the copy.
// Thread safety: one Relay per thread; several relays (processes) may share a
// store — each claims different rows.
#pragma once

#include <cstdint>

#include "idem/publisher.h"
#include "idem/status.h"
#include "idem/store.h"

namespace idem::outbox {

struct RelayOptions {
  int64_t batch_size = 100;            // rows claimed and published per step; default 100
  int64_t claim_ms = 30'000;           // a claimed row is due again after this if never marked; default 30 s
  int64_t backoff_initial_ms = 1'000;  // delay after the first failed publish, doubling; default 1 s
  int64_t backoff_max_ms = 300'000;    // cap of the doubling delay; default 5 min
  int max_attempts = 10;               // publish attempts before a row becomes DEAD; default 10
  int64_t sent_retention_ms = 3'600'000;  // SENT rows are deleted after this; default 1 h
  int64_t cleanup_batch = 1'000;          // at most this many SENT rows deleted per step; default 1000
  // Per-key order: a row is claimed only when no earlier row of its key is
  // still PENDING (backing off, or claimed by a relay that has not marked it).
  // The cost: one stuck row holds back every later row of its key until it is
  // SENT or DEAD, and a step takes at most one row per key. Default false.
  bool per_key_order = false;
};

// What one step did.
struct RelayStep {
  int64_t claimed = 0;    // rows taken for publishing
  int64_t published = 0;  // confirmed by the broker and marked SENT
  int64_t failed = 0;     // publish failed: due again after a backoff
  int64_t dead = 0;       // failed for the last time: DEAD
  int64_t cleaned = 0;    // SENT rows deleted
};

// The outbox as the relay sees it (for metrics and `idem outbox relay`).
struct OutboxStats {
  int64_t pending = 0;
  int64_t oldest_pending_ms = 0;  // created_ms of the oldest PENDING row (0 if none)
  int64_t sent = 0;               // SENT rows not yet cleaned up
  int64_t dead = 0;
};

class Relay {
 public:
  // `store` and `publisher` must outlive the relay. Time comes in through
  // RelayOnce (from an Env), so the simulator can drive it.
  Relay(Store& store, Publisher& publisher, RelayOptions options = {});

  // One step at time `now_ms`: claims the due PENDING rows (oldest first, at
  // most batch_size) in a short transaction, publishes them in that order,
  // marks them SENT after the confirm or backs them off (DEAD after
  // max_attempts), and deletes at most cleanup_batch SENT rows older than the
  // retention. A non-OK Status is a store error (the step can simply run again:
  // claimed rows are due again after claim_ms); publish errors are counted, not returned.
  Result<RelayStep> RelayOnce(int64_t now_ms);

 private:
  Store& store_;
  Publisher& publisher_;
  RelayOptions options_;
};

// Counts the outbox rows by state, in a read-only transaction. Without
// `count_sent` the SENT rows (an hour's worth, by default) are not counted:
// the query stays on the PENDING and DEAD rows, cheap enough for every scrape.
Result<OutboxStats> ReadOutboxStats(Store& store, bool count_sent = true);

}  // namespace idem::outbox
