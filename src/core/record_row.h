// Reading a consumption record from a row, in the column order every store uses:
// consumer_group, key, status, fingerprint, message_id, attempts, duplicates,
// lease_until_ms, first_seen_ms, last_seen_ms, last_error, result_summary.
#pragma once

#include "idem/record.h"
#include "idem/sql.h"

namespace idem {

Record RecordFromRow(const Row& row);

}  // namespace idem
