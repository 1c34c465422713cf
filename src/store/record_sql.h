// The consumption-record statements that read the same on every SQL store,
// over the store's dialect. The table itself is written in the schema module
// (store/schema/tables.h). A backend keeps only what must differ (its batch
// claim and record writes, its sweep, its error mapping, its placeholders).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "idem/sql.h"
#include "idem/status.h"
#include "idem/store.h"

namespace idem::record_sql {

// Every record read returns these columns, in RecordFromRow's order (core/record_row.h).
#define IDEM_RECORD_COLUMNS                                                                     \
  "consumer_group, key, status, fingerprint, message_id, attempts, duplicates, lease_until_ms, " \
  "first_seen_ms, last_seen_ms, last_error, result_summary"

// The record columns in RecordFromRow's order, for a SELECT list, with the key
// column quoted (MySQL reserves the word `key`).
std::string RecordColumns(const SqlDialect& dialect);

// The key column's name as the dialect writes it in a statement.
std::string KeyColumn(const SqlDialect& dialect);

// For an open that creates nothing: NotFound "… is not an idem store (no
// idem_records table)" when the database lacks the record table (looked up in
// the catalog, so nothing is written), and Permanent for a store written by a
// newer idem. `what` names the database in the message.
Status RequireIdemStore(SqlTx& tx, const std::string& what);

// SELECT of one record; parameters: group, key.
std::string ReadRecordSql(const SqlDialect& dialect);

// After a batch's record writes changed fewer records than it had writes:
// NotFound naming the first key with no record (OK if every one has one).
Status NameMissingRecord(SqlTx& tx, std::string_view group, std::span<const RecordWrite> writes);

}  // namespace idem::record_sql
