// Sweeper: retention of consumption records, as a step function.
//
// A record older than the retention window (last seen before now − window) is
// deleted, in bounded batches: each RunIfDue call deletes at most one batch
// (one short statement, never one long lock over the table). While batches
// come back full the next call is due at once; after a short one the pass is
// over and the next one is due `interval_ms` later. The service calls it from
// its supervising loop with Env time; the simulator can drive it the same way.
//
// The window must cover the longest redelivery window — every retry delay,
// the lease and the fast filter's TTL — or a late copy of a message whose
// record was swept would run its effects again (only the business guards
// would stand in its way). Create refuses a shorter one.
//
// Which records go is the store's rule (Store::SweepRecords): finished ones
// (SUCCEEDED, FAILED); PROCESSING and RELEASED records still guard work.
//
// Thread safety: one thread at a time; `store` is used by the sweeper only.
#pragma once

#include <cstdint>
#include <string>

#include "idem/status.h"
#include "idem/store.h"

namespace idem::ops {

struct SweepOptions {
  int64_t window_ms = 90LL * 24 * 3600 * 1000;  // keep records this long; default 90 days
  int64_t interval_ms = 3'600'000;              // between passes; default 1 h
  int64_t batch_rows = 1'000;                   // rows per delete statement; default 1000
};

// What one RunIfDue call did.
struct SweepStep {
  bool ran = false;          // false: not due yet
  int64_t deleted = 0;       // by this call
  bool pass_done = false;    // this call ended a pass (the batch was not full, or it failed)
  int64_t pass_deleted = 0;  // when pass_done: deleted by the whole pass
  int64_t cutoff_ms = 0;     // records last seen before this went
  Status status;             // not OK: the store failed; the pass ends, the next is due after interval_ms
};

class Sweeper {
 public:
  // InvalidArgument when window_ms < min_window_ms (saying both), or a bound is not positive.
  static Result<Sweeper> Create(Store* store, SweepOptions options, int64_t min_window_ms);

  // The first pass is due at once.
  SweepStep RunIfDue(int64_t now_ms);

  int64_t next_due_ms() const { return next_due_ms_; }
  const SweepOptions& options() const { return options_; }

 private:
  Sweeper(Store* store, SweepOptions options) : store_(store), options_(options) {}
  Store* store_;
  SweepOptions options_;
  int64_t next_due_ms_ = 0;
  int64_t pass_cutoff_ms_ = -1;  // fixed for a whole pass, so a pass ends even under steady traffic
  int64_t pass_deleted_ = 0;
};

}  // namespace idem::ops
