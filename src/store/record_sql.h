// The consumption-record table, written once for every SQL store: its columns,
// its DDL in each dialect, the schema version check and the record statements
// that read the same on every engine. A backend keeps only what must differ
// (its batch claim and record writes, its sweep, its error mapping, its placeholders).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "idem/sql.h"
#include "idem/status.h"
#include "idem/store.h"

namespace idem::record_sql {

// Raised when the table changes; a store refuses a database with a newer one.
inline constexpr int kSchemaVersion = 1;

// Every record read returns these columns, in RecordFromRow's order (core/record_row.h).
#define IDEM_RECORD_COLUMNS                                                                     \
  "consumer_group, key, status, fingerprint, message_id, attempts, duplicates, lease_until_ms, " \
  "first_seen_ms, last_seen_ms, last_error, result_summary"

// The record columns in RecordFromRow's order, for a SELECT list. MySQL
// reserves the word `key`: its dialect quotes the column.
const std::string& RecordColumns(Dialect dialect);

// The key column's name as the dialect writes it in a statement.
std::string_view KeyColumn(Dialect dialect);

// CREATE … IF NOT EXISTS of idem_schema and idem_records with its index, as
// one script: the same columns and meaning on every engine.
std::string SchemaDdl(Dialect dialect);

// After SchemaDdl ran in `tx`: stamps a new database with kSchemaVersion, and
// refuses (Permanent) one written by a newer idem.
Status CheckSchemaVersion(SqlTx& tx);

// Whether `table` exists (for PostgreSQL: on the search_path), from the
// catalog: nothing is written, and a missing table is no error.
Result<bool> HasTable(SqlTx& tx, const std::string& table);

// For an open that creates nothing: NotFound "… is not an idem store (no
// idem_records table)" when the database lacks the record table (looked up in
// the catalog, so nothing is written), and CheckSchemaVersion's refusal of a
// newer schema. `what` names the database in the message.
Status RequireIdemStore(SqlTx& tx, const std::string& what);

// SELECT of one record; parameters: group, key.
const std::string& ReadRecordSql(Dialect dialect);

// After a batch's record writes changed fewer records than it had writes:
// NotFound naming the first key with no record (OK if every one has one).
Status NameMissingRecord(SqlTx& tx, std::string_view group, std::span<const RecordWrite> writes);

// ---- The transactional outbox (docs/outbox.md) ----
// idem_outbox holds the messages handlers emit (HandlerContext::Emit) until the
// relay has them confirmed by the broker: PENDING rows are due at due_ms; SENT
// rows wait for cleanup; DEAD rows failed max_attempts times. Created with the
// record table (SchemaDdl), so every store has it.
std::string OutboxDdl(Dialect dialect);

// ---- Dead letters kept in the store (docs/retries-and-dlq.md) ----
// idem_dead_letters holds the messages a broker could not take back as a
// dead-letter copy (the body alone over its limit, or a move it refused for
// good): the payload byte-exact, the headers as a JSON object, the reason and
// the handler runs. Created with the record table (SchemaDdl).
std::string DeadLetterDdl(Dialect dialect);

// ---- Replay grants (store/replay_grants.h) ----
// idem_replay_grants: one row per dead letter an operator replayed, taken by
// the run of that copy. Created with the record table (SchemaDdl).
std::string ReplayGrantDdl(Dialect dialect);

}  // namespace idem::record_sql
