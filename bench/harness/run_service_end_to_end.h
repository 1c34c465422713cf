// `idem run` against the library's pipeline, end to end on the same kind of
// queue and store: the messages are published to an embedded queue (in the
// SQLite store's own file, or in a file of its own) before anything consumes
// them, then consumed either by
//   library  the library's Pipeline in this process, with the payments
//            service's pay.success handler (the one `idem run` registers), or
//   idem-run an `idem run --until-idle` process with a generated configuration
//            naming the same queue, store, group and batch size and the
//            "payments" handler set (the same pay.success handler).
// Both are timed by the same outside watch of the queue draining
// (queue_drain_watch.h), from the first settled batch to the last, so neither
// side's start-up or shutdown counts. The effects are then checked exactly once
// from the database; the library run also with the counts from inside it.
#pragma once

#include <string>

#include "harness/run_spec.h"

namespace idem::bench {

RunResult RunServiceEndToEnd(const RunSpec& spec);

// The `idem run` configuration of such a run: `queue_url` and `store_url` as
// the service takes them, one group, one worker, the payments handler set;
// the product's defaults otherwise, but for `log_decisions` when false.
std::string ServiceRunConfig(const std::string& queue_url, const std::string& store_url, const std::string& group,
                             size_t batch_size, bool log_decisions = true);

}  // namespace idem::bench
