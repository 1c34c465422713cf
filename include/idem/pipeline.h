// Pipeline: the consumer. Poll a bounded batch, derive keys, dedup within the
// batch, claim all records in one transaction, run each handler under its own
// savepoint, complete the records, commit, then settle with the source.
//
//   Source ──▶ keys ──▶ Tx { claim ─▶ handler(s) ─▶ complete } ──▶ ack / retry tier / terminal
//
// Exceptions: RunOnce does not throw for what a message, a handler or a backend
// throws. A throw while deriving a message's key parks that message with a reason
// naming the exception; a handler's throw is a retryable failure of its message;
// a source, store or fast filter that throws counts as one that failed.
//
// Thread safety: a Pipeline is driven by one thread. Run several pipelines (each
// with its own Source and Store connection) for parallelism.
// User guide: docs/library.md (the pipeline), docs/retries-and-dlq.md (outcomes).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "idem/decision.h"
#include "idem/env.h"
#include "idem/fast_filter.h"
#include "idem/handler.h"
#include "idem/retry.h"
#include "idem/source.h"
#include "idem/status.h"
#include "idem/store.h"

namespace idem {

struct PipelineOptions {
  std::string consumer_group = "default";  // records are unique per (group, key)
  size_t batch_size = 100;                 // max messages per poll and transaction; default 100
  int64_t max_linger_ms = 20;              // how long a poll waits for the first message; default 20 ms
  int64_t lease_ms = 60'000;               // PROCESSING claim lease; default 60 s
  size_t max_payload_bytes = 1 << 20;      // larger payloads are parked; default 1 MiB
  // Deeper JSON (containers inside containers; `{}` is 1) is parked before any
  // recursive parsing, so a hostile payload cannot overflow the stack. Values
  // above 1000 act as 1000. Default 64.
  size_t max_json_depth = 64;
  RetryPolicy retry;
  // Back-off when the database is unavailable: doubles from min to max. Messages
  // are released to the broker, never dropped. Defaults 100 ms … 10 s.
  int64_t unavailable_backoff_min_ms = 100;
  int64_t unavailable_backoff_max_ms = 10'000;
  // A deadlock or serialization failure (Status::IsTransactionConflict), met by
  // the claim, the commit or any statement of a handler, rolls the whole batch
  // transaction back and runs it again at once: no attempt is spent, nothing is
  // released. Only after this many runs in all are the messages released, as
  // for an unavailable database. Default 5.
  int transaction_conflict_tries = 5;
  // The wait before rerun n is random in [w/2, w] with w = this · 2^(n-1), so the
  // rivals do not collide again in step. Default 20 ms.
  int64_t transaction_conflict_wait_ms = 20;
  // Messages whose topic has no handler are parked (true, default) rather than left to loop.
  bool park_unknown_topics = true;
  // A copy acknowledged as a duplicate (or parked again) writes its record —
  // duplicates + 1 and last_seen_ms refreshed — only when the record was last
  // seen longer ago than this; the copies in between cost no write, and the
  // duplicate counter (DecisionCounters) still counts every one. So a record's
  // `duplicates` is a lower bound, and retention keeps a record at least its
  // window minus this after the last copy. 0: every copy writes. Default 60 s.
  int64_t duplicate_refresh_after_ms = 60'000;
};

// What one batch did.
struct BatchReport {
  size_t polled = 0;
  size_t first = 0, duplicate = 0, conflict = 0, retried = 0, parked = 0, released = 0, in_flight = 0;
  size_t filtered = 0;  // duplicates the fast filter caught without a database lookup
  size_t transaction_retries = 0;  // reruns of the batch transaction after deadlocks or serialization failures
  // 1 when a message failed in the batch's first run, which has no savepoint
  // per message, so the batch ran again with one per message to isolate it.
  size_t careful_reruns = 0;
  Status status;  // not OK if the batch could not be committed or settled
};

class Pipeline {
 public:
  Pipeline(Source* source, Store* store, Env* env, PipelineOptions options);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // REQUIRES: before the first RunOnce; one handler per topic.
  Status Register(HandlerSpec spec);

  // Where decisions are written, one call per message, after the batch commits
  // and before its messages are settled with the source (a source settling
  // inside the store's transaction has acknowledged with the COMMIT). Default:
  // none (counters only).
  void SetDecisionSink(DecisionSink sink);

  // Puts a fast filter (Redis, LRU) in front of the durable guard. Fails if the
  // TTL does not cover the retry window. `filter` must outlive the pipeline.
  Status SetFastFilter(FastFilter* filter, FastFilterOptions options);

  // Processes one batch. A batch with nothing to poll returns polled == 0.
  BatchReport RunOnce();

  // Runs batches until `should_stop()` returns true or, with `until_idle`, until a
  // poll comes back empty.
  Status Run(const std::function<bool()>& should_stop, bool until_idle = false);

  const DecisionCounters& counters() const;

 private:
  class Impl;
  friend class PipelineTestHooks;  // internal: the guard-off switch of the demo and the simulator
  std::unique_ptr<Impl> impl_;
};

}  // namespace idem
