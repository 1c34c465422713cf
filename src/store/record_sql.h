// The consumption-record table, written once for every SQL store: its columns,
// its DDL in each dialect and the schema version check. A backend keeps only
// what must differ (its batch claim, its error mapping, its placeholders).
#pragma once

#include <string>

#include "idem/sql.h"
#include "idem/status.h"

namespace idem::record_sql {

// Raised when the table changes; a store refuses a database with a newer one.
inline constexpr int kSchemaVersion = 1;

// Every record read returns these columns, in RecordFromRow's order (core/record_row.h).
#define IDEM_RECORD_COLUMNS                                                                     \
  "consumer_group, key, status, fingerprint, message_id, attempts, duplicates, lease_until_ms, " \
  "first_seen_ms, last_seen_ms, last_error, result_summary"

// CREATE … IF NOT EXISTS of idem_schema and idem_records with its index, as
// one script: the same columns and meaning on every engine.
std::string SchemaDdl(Dialect dialect);

// After SchemaDdl ran in `tx`: stamps a new database with kSchemaVersion, and
// refuses (Permanent) one written by a newer idem.
Status CheckSchemaVersion(SqlTx& tx);

// ---- The transactional outbox (docs/outbox.md) ----
// idem_outbox holds the messages handlers emit (HandlerContext::Emit) until the
// relay has them confirmed by the broker: PENDING rows are due at due_ms; SENT
// rows wait for cleanup; DEAD rows failed max_attempts times. Created with the
// record table (SchemaDdl), so every store has it.
std::string OutboxDdl(Dialect dialect);

}  // namespace idem::record_sql
