#include "store/record_sql.h"

namespace idem::record_sql {
namespace {

// MySQL: keys and groups are VARBINARY (compared byte-wise, like the other
// dialects); together they stay under InnoDB's 3072-byte index limit.
std::string MySqlSchemaDdl() {
  return "CREATE TABLE IF NOT EXISTS idem_schema (version INTEGER NOT NULL) ENGINE=InnoDB;\n"
         "CREATE TABLE IF NOT EXISTS idem_records (\n"
         "  consumer_group VARBINARY(255) NOT NULL,\n"
         "  `key`          VARBINARY(512) NOT NULL,\n"
         "  status         VARCHAR(16) NOT NULL CHECK (status IN ('PROCESSING','SUCCEEDED','FAILED','RELEASED')),\n"
         "  fingerprint    TEXT NOT NULL,\n"
         "  message_id     TEXT NOT NULL,\n"
         "  attempts       INTEGER NOT NULL DEFAULT 0,\n"
         "  duplicates     INTEGER NOT NULL DEFAULT 0,\n"
         "  lease_until_ms BIGINT NOT NULL,\n"
         "  first_seen_ms  BIGINT NOT NULL,\n"
         "  last_seen_ms   BIGINT NOT NULL,\n"
         "  last_error     MEDIUMTEXT NOT NULL DEFAULT '',\n"
         "  result_summary MEDIUMTEXT NOT NULL DEFAULT '',\n"
         "  PRIMARY KEY (consumer_group, `key`)\n"
         ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;\n"
         "CREATE INDEX IF NOT EXISTS idem_records_by_last_seen ON idem_records (last_seen_ms);\n";
}

}  // namespace

std::string_view KeyColumn(Dialect dialect) { return dialect == Dialect::kMySql ? "`key`" : "key"; }

const std::string& RecordColumns(Dialect dialect) {
  static const std::string plain = IDEM_RECORD_COLUMNS;
  static const std::string mysql = "consumer_group, `key`, status, fingerprint, message_id, attempts, duplicates, "
                                   "lease_until_ms, first_seen_ms, last_seen_ms, last_error, result_summary";
  return dialect == Dialect::kMySql ? mysql : plain;
}

std::string SchemaDdl(Dialect dialect) {
  if (dialect == Dialect::kMySql) return MySqlSchemaDdl() + OutboxDdl(dialect) + DeadLetterDdl(dialect) + ReplayGrantDdl(dialect);
  const bool pg = dialect == Dialect::kPostgres;
  // Keys compare byte-wise: exact, locale-independent, and the cheapest index
  // order. SQLite's default (BINARY) already is; PostgreSQL needs COLLATE "C".
  const std::string key = pg ? R"(TEXT COLLATE "C")" : "TEXT";
  const std::string ms = pg ? "BIGINT" : "INTEGER";  // SQLite's INTEGER is 64-bit
  // SQLite: the primary key is the table (no rowid b-tree beside it).
  const std::string table_options = pg ? "" : " WITHOUT ROWID";
  // SQLite builds a temporary b-tree for an IN list of more than two values
  // each time it checks the constraint: written as IN, this CHECK made a
  // record insert cost about 56k instructions instead of 23k.
  const std::string status_check =
      pg ? "status IN ('PROCESSING','SUCCEEDED','FAILED','RELEASED')"
         : "status = 'PROCESSING' OR status = 'SUCCEEDED' OR status = 'FAILED' OR status = 'RELEASED'";
  return "CREATE TABLE IF NOT EXISTS idem_schema (version INTEGER NOT NULL);\n"
         "CREATE TABLE IF NOT EXISTS idem_records (\n"
         "  consumer_group " + key + " NOT NULL,\n"
         "  key            " + key + " NOT NULL,\n"
         "  status         TEXT NOT NULL CHECK (" + status_check + "),\n"
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
         OutboxDdl(dialect) + DeadLetterDdl(dialect) + ReplayGrantDdl(dialect);
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

Result<bool> HasTable(SqlTx& tx, const std::string& table) {
  static const char* const kCount[] = {
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
      // to_regclass follows the search_path, as the store's statements do.
      "SELECT count(*) FROM (SELECT to_regclass(?) AS t) r WHERE t IS NOT NULL",
      "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?"};
  auto found = tx.Query(kCount[static_cast<int>(tx.Dialect())], {table});
  if (!found.ok()) return found.status();
  return !found->empty() && AsInt((*found)[0][0]) > 0;
}

Status RequireIdemStore(SqlTx& tx, const std::string& what) {
  auto found = HasTable(tx, "idem_records");
  if (!found.ok()) return found.status();
  if (!*found)
    return Status::NotFound(what + " is not an idem store (no idem_records table): check the store URL (idem run "
                            "creates the tables at its first start)");
  auto rows = tx.Query("SELECT version FROM idem_schema", {});
  if (!rows.ok()) return rows.status();
  if (!rows->empty() && AsInt((*rows)[0][0]) > kSchemaVersion)
    return Status::Permanent("the store was written by a newer idem (schema version " +
                             std::to_string(AsInt((*rows)[0][0])) + "); upgrade idem to open it");
  return Status::OK();
}

const std::string& ReadRecordSql(Dialect dialect) {
  static const std::string by_dialect[] = {
      "SELECT " + RecordColumns(Dialect::kSqlite) + " FROM idem_records WHERE consumer_group = ? AND key = ?",
      "SELECT " + RecordColumns(Dialect::kPostgres) + " FROM idem_records WHERE consumer_group = ? AND key = ?",
      "SELECT " + RecordColumns(Dialect::kMySql) + " FROM idem_records WHERE consumer_group = ? AND `key` = ?"};
  return by_dialect[static_cast<int>(dialect)];
}

Status NameMissingRecord(SqlTx& tx, std::string_view group, std::span<const RecordWrite> writes) {
  for (const RecordWrite& w : writes) {
    auto rows = tx.Query(ReadRecordSql(tx.Dialect()), {std::string(group), std::string(w.key)});
    if (!rows.ok()) return rows.status();
    if (rows->empty())
      return Status::NotFound(std::string(w.kind == RecordWrite::Kind::kTouch ? "record to count a copy on"
                                                                              : "record to complete") +
                              " is missing: " + std::string(w.key));
  }
  return Status::OK();
}

// ---- The transactional outbox ----

namespace {

// MySQL: keys are VARBINARY (byte-wise, like the other dialects); InnoDB
// wants a length on indexed columns.
std::string MySqlOutboxDdl() {
  return "CREATE TABLE IF NOT EXISTS idem_outbox (\n"
         "  id         BIGINT AUTO_INCREMENT PRIMARY KEY,\n"
         "  message_id VARBINARY(64) NOT NULL UNIQUE,\n"
         "  topic      VARCHAR(255) NOT NULL,\n"
         "  msg_key    VARBINARY(512) NOT NULL,\n"
         "  headers    MEDIUMTEXT NOT NULL,\n"
         "  payload    LONGBLOB NOT NULL,\n"
         "  state      VARCHAR(8) NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING','SENT','DEAD')),\n"
         "  attempts   INTEGER NOT NULL DEFAULT 0,\n"
         "  due_ms     BIGINT NOT NULL,\n"
         "  created_ms BIGINT NOT NULL,\n"
         "  sent_ms    BIGINT NOT NULL DEFAULT 0,\n"
         "  last_error MEDIUMTEXT NOT NULL DEFAULT ''\n"
         ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;\n"
         "CREATE INDEX IF NOT EXISTS idem_outbox_due ON idem_outbox (state, due_ms);\n";
}

}  // namespace

std::string OutboxDdl(Dialect dialect) {
  if (dialect == Dialect::kMySql) return MySqlOutboxDdl();
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

// ---- Dead letters kept in the store ----

std::string DeadLetterDdl(Dialect dialect) {
  const bool pg = dialect == Dialect::kPostgres, my = dialect == Dialect::kMySql;
  const std::string id = pg ? "BIGSERIAL PRIMARY KEY" : my ? "BIGINT AUTO_INCREMENT PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT";
  // MySQL: bytes, compared and kept as they came (a producer's topic or key need not be UTF-8).
  const std::string text = my ? "MEDIUMBLOB" : "TEXT";
  const std::string bytes = pg ? "BYTEA" : my ? "LONGBLOB" : "BLOB";  // payloads are kept byte-exact
  const std::string ms = pg || my ? "BIGINT" : "INTEGER";
  return "CREATE TABLE IF NOT EXISTS idem_dead_letters (\n"
         "  id             " + id + ",\n"
         "  consumer_group " + text + " NOT NULL,\n"
         "  topic          " + text + " NOT NULL,\n"
         "  msg_key        " + text + " NOT NULL,\n"
         "  message_id     " + text + " NOT NULL,\n"
         "  headers        " + text + " NOT NULL,\n"
         "  payload        " + bytes + " NOT NULL,\n"
         "  reason         " + text + " NOT NULL,\n"
         "  attempts       INTEGER NOT NULL DEFAULT 0,\n"
         "  parked_ms      " + ms + " NOT NULL\n"
         ")" + (my ? " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin" : "") + ";\n";
}

// ---- Replay grants ----

std::string ReplayGrantDdl(Dialect dialect) {
  // Only the id column and the text types differ; the digest (32 hex digits)
  // is what the pipeline looks a grant up by.
  const std::string id = dialect == Dialect::kPostgres ? "BIGSERIAL PRIMARY KEY"
                         : dialect == Dialect::kMySql  ? "BIGINT AUTO_INCREMENT PRIMARY KEY"
                                                       : "INTEGER PRIMARY KEY AUTOINCREMENT";
  const bool mysql = dialect == Dialect::kMySql;
  const std::string ms = dialect == Dialect::kSqlite ? "INTEGER" : "BIGINT";
  return "CREATE TABLE IF NOT EXISTS idem_replay_grants (\n"
         "  id          " + id + ",\n"
         "  copy_digest " + std::string(mysql ? "VARCHAR(32)" : "TEXT") + " NOT NULL,\n"
         "  message_id  " + std::string(mysql ? "BLOB" : "TEXT") + " NOT NULL,\n"
         "  audit_id    " + ms + " NOT NULL,\n"
         "  actor       TEXT NOT NULL,\n"
         "  granted_ms  " + ms + " NOT NULL\n"
         ")" + std::string(mysql ? " ENGINE=InnoDB" : "") + ";\n"
         "CREATE INDEX IF NOT EXISTS idem_replay_grants_by_copy ON idem_replay_grants (copy_digest);\n";
}

}  // namespace idem::record_sql
