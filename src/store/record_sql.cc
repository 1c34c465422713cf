#include "store/record_sql.h"

namespace idem::record_sql {

std::string SchemaDdl(Dialect dialect) {
  const bool pg = dialect == Dialect::kPostgres;
  // Keys compare byte-wise: exact, locale-independent, and the cheapest index
  // order. SQLite's default (BINARY) already is; PostgreSQL needs COLLATE "C".
  const std::string key = pg ? R"(TEXT COLLATE "C")" : "TEXT";
  const std::string ms = pg ? "BIGINT" : "INTEGER";  // SQLite's INTEGER is 64-bit
  // SQLite: the primary key is the table (no rowid b-tree beside it).
  const std::string table_options = pg ? "" : " WITHOUT ROWID";
  return "CREATE TABLE IF NOT EXISTS idem_schema (version INTEGER NOT NULL);\n"
         "CREATE TABLE IF NOT EXISTS idem_records (\n"
         "  consumer_group " + key + " NOT NULL,\n"
         "  key            " + key + " NOT NULL,\n"
         "  status         TEXT NOT NULL CHECK (status IN ('PROCESSING','SUCCEEDED','FAILED','RELEASED')),\n"
         "  fingerprint    TEXT NOT NULL,\n"
         "  message_id     TEXT NOT NULL,\n"
         "  attempts       INTEGER NOT NULL DEFAULT 0,\n"
         "  duplicates     INTEGER NOT NULL DEFAULT 0,\n"
         "  lease_until_ms " + ms + " NOT NULL,\n"
         "  first_seen_ms  " + ms + " NOT NULL,\n"
         "  last_seen_ms   " + ms + " NOT NULL,\n"
         "  last_error     TEXT NOT NULL DEFAULT '',\n"
         "  result_summary TEXT NOT NULL DEFAULT '',\n"
         "  PRIMARY KEY (consumer_group, key)\n"
         ")" + table_options + ";\n"
         "CREATE INDEX IF NOT EXISTS idem_records_by_last_seen ON idem_records (last_seen_ms);\n" +
         OutboxDdl(dialect);
}

Status CheckSchemaVersion(SqlTx& tx) {
  auto rows = tx.Query("SELECT version FROM idem_schema", {});
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return tx.Exec("INSERT INTO idem_schema (version) VALUES (?)", {int64_t{kSchemaVersion}}).status();
  if (AsInt((*rows)[0][0]) > kSchemaVersion)
    return Status::Permanent("the store was written by a newer idem (schema version " +
                             std::to_string(AsInt((*rows)[0][0])) + "); upgrade idem to open it");
  return Status::OK();
}

// ---- The transactional outbox ----

std::string OutboxDdl(Dialect dialect) {
  const bool pg = dialect == Dialect::kPostgres;
  // The id orders rows as they were emitted (the relay publishes in that order);
  // message_id is the stable id a row keeps across every publish attempt.
  const std::string id = pg ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT";
  const std::string key = pg ? R"(TEXT COLLATE "C")" : "TEXT";
  const std::string ms = pg ? "BIGINT" : "INTEGER";
  const std::string bytes = pg ? "BYTEA" : "BLOB";  // payloads are kept byte-exact
  return "CREATE TABLE IF NOT EXISTS idem_outbox (\n"
         "  id         " + id + ",\n"
         "  message_id " + key + " NOT NULL UNIQUE,\n"
         "  topic      TEXT NOT NULL,\n"
         "  msg_key    " + key + " NOT NULL,\n"
         "  headers    TEXT NOT NULL DEFAULT '{}',\n"
         "  payload    " + bytes + " NOT NULL,\n"
         "  state      TEXT NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING','SENT','DEAD')),\n"
         "  attempts   INTEGER NOT NULL DEFAULT 0,\n"
         "  due_ms     " + ms + " NOT NULL,\n"
         "  created_ms " + ms + " NOT NULL,\n"
         "  sent_ms    " + ms + " NOT NULL DEFAULT 0,\n"
         "  last_error TEXT NOT NULL DEFAULT ''\n"
         ");\n"
         "CREATE INDEX IF NOT EXISTS idem_outbox_due ON idem_outbox (state, due_ms);\n";
}

}  // namespace idem::record_sql
