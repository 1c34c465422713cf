#include "store/schema/migrations.h"

#include "store/schema/tables.h"

namespace idem::schema {
namespace {

// Version 2. A SQLite table whose CHECK lists its values with IN pays a
// temporary b-tree at every insert (tables.h, OneOf): idem_records written by
// idem before that was known, and every idem_outbox of version 1. SQLite cannot
// change a CHECK in place, so such a table is rebuilt: renamed, created anew,
// copied, dropped. Other engines keep their tables.
Result<std::string> RebuildSqliteTable(SqlTx& tx, std::string_view table, const std::string& columns,
                                       std::string (*ddl)(const SqlDialect&), std::string_view index) {
  const std::string_view query = tx.Dialect().TableDefinitionQuery();
  if (query.empty()) return std::string();
  auto rows = tx.Query(query, {std::string(table)});
  if (!rows.ok()) return rows.status();
  if (rows->empty() || AsText((*rows)[0][0]).find(" IN (") == std::string::npos) return std::string();
  const std::string name(table), old = name + "_v1";
  // The index moves with the renamed table; dropped first, it is created anew by the DDL.
  return "DROP INDEX IF EXISTS " + std::string(index) + ";\nALTER TABLE " + name + " RENAME TO " + old + ";\n" +
         ddl(tx.Dialect()) + "INSERT INTO " + name + " (" + columns + ") SELECT " + columns + " FROM " + old +
         ";\nDROP TABLE " + old + ";\n";
}

Result<std::string> CheapChecks(SqlTx& tx) {
  auto records = RebuildSqliteTable(tx, "idem_records",
                                    "consumer_group, key, status, fingerprint, message_id, attempts, duplicates, "
                                    "lease_until_ms, first_seen_ms, last_seen_ms, last_error, result_summary",
                                    &RecordsTableDdl, "idem_records_by_last_seen");
  if (!records.ok()) return records.status();
  auto outbox = RebuildSqliteTable(tx, "idem_outbox",
                                   "id, message_id, topic, msg_key, headers, payload, state, attempts, due_ms, "
                                   "created_ms, sent_ms, last_error",
                                   &OutboxTableDdl, "idem_outbox_due");
  if (!outbox.ok()) return outbox.status();
  return *records + *outbox;
}

}  // namespace

const std::vector<Migration>& Migrations() {
  static const std::vector<Migration> all{
      {2, "rewrite SQLite's idem_records and idem_outbox without the CHECK ... IN that costs every insert",
       &CheapChecks},
  };
  return all;
}

}  // namespace idem::schema
