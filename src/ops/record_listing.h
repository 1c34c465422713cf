// Listing consumption records for an operator: the ones that need a look —
// PROCESSING past their lease (a worker died holding them, or a handler runs
// far longer than the lease) and FAILED (parked; replay may retry them) — or
// every record of one status. Read-only, one query, bounded by `limit`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "idem/record.h"
#include "idem/store.h"

namespace idem::ops {

struct RecordFilter {
  std::string group;                  // empty: every group
  std::optional<RecordStatus> status;  // empty: stuck PROCESSING and FAILED
  int64_t limit = 100;
};

// Oldest first (by last_seen_ms). `now_ms` decides which leases have expired.
Result<std::vector<Record>> ListRecords(Store& store, const RecordFilter& filter, int64_t now_ms);

}  // namespace idem::ops
