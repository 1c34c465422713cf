// The outcome of a run in Prometheus' text format, written to a file that a
// node exporter's textfile collector (or the service) exports. Written to a
// temporary file and renamed, so a scraper never reads half a file.
#pragma once

#include <cstdint>
#include <string>

#include "idem/status.h"
#include "ops/reconcile/reconcile.h"

namespace idem::reconcile {

struct RunFacts {
  std::string ledger;             // the ledger table: the `ledger` label
  int64_t finished_ms = 0;        // when the run ended
  double duration_seconds = 0;    // how long it took
  const ReconcileResult* result;  // null when the run failed
};

// idem_reconcile_* gauges; base units (seconds). On failure only the run's
// timestamp, duration and idem_reconcile_last_run_success 0 are written.
std::string MetricsText(const RunFacts& facts);

// Writes MetricsText to `path` atomically. IOError naming the path on failure.
Status WriteMetricsFile(const std::string& path, const RunFacts& facts);

}  // namespace idem::reconcile
