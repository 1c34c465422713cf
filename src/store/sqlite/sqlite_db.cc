#include "store/sqlite/sqlite_db.h"

namespace idem::sqlite {

Status StatusFromSqlite(int rc, std::string message) {
  switch (rc & 0xff) {
    case SQLITE_OK:
    case SQLITE_DONE:
    case SQLITE_ROW:
      return Status::OK();
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Busy(message + " (another process holds the lock; retry later)");
    case SQLITE_CONSTRAINT:
      if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
        return Status::AlreadyExists(std::move(message));
      return Status::Permanent(std::move(message));
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_PROTOCOL:
      return Status::IOError(std::move(message));
    case SQLITE_CORRUPT:
      return Status::Corruption(message + " (the database file is damaged; restore it from a backup)");
    case SQLITE_NOTADB:
      // The file's first bytes are not an SQLite header: almost always a path
      // that names some other file, not a database that was damaged.
      return Status::InvalidArgument(message + " (the file is not an SQLite database: check the path)");
    case SQLITE_NOMEM:
      return Status::Retryable(std::move(message));
    default:
      return Status::Permanent(std::move(message));
  }
}

Result<std::unique_ptr<Db>> Db::Open(const std::string& path, const OpenOptions& options) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw,
                           SQLITE_OPEN_READWRITE | (options.create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = "cannot open SQLite database '" + path + "': " +
                      (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)) +
                      " (check that the folder exists and is writable)";
    sqlite3_close(raw);
    return StatusFromSqlite(rc, msg);
  }
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, options.busy_timeout_ms);
  std::unique_ptr<Db> db(new Db(raw, path));
  if (path != ":memory:" && options.wal) {
    auto mode = db->Query("PRAGMA journal_mode=WAL");
    if (!mode.ok()) return mode.status();
  }
  IDEM_RETURN_IF_ERROR(db->ExecScript(options.synchronous_full ? "PRAGMA synchronous=FULL"
                                                               : "PRAGMA synchronous=NORMAL"));
  IDEM_RETURN_IF_ERROR(db->ExecScript("PRAGMA foreign_keys=ON"));
  return db;
}

Db::~Db() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

Status Db::Error(int rc, std::string_view what) const {
  if ((rc & 0xff) == SQLITE_NOTADB)
    return Status::InvalidArgument("'" + path_ + "' is not an SQLite database (" + std::string(what) + ": " +
                                   sqlite3_errmsg(db_) + "): check the path names the right file");
  return StatusFromSqlite(rc, std::string(what) + ": " + sqlite3_errmsg(db_));
}

Result<sqlite3_stmt*> Db::Prepare(std::string_view sql) {
  auto it = cache_.find(sql);
  // Every run leaves its statement reset and unbound (Unbind, also on a bind error).
  if (it != cache_.end()) return it->second;
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                              &stmt, nullptr);
  if (rc != SQLITE_OK) return Error(rc, "cannot prepare statement [" + std::string(sql) + "]");
  cache_.emplace(std::string(sql), stmt);
  return stmt;
}

// Text and blobs are bound SQLITE_STATIC, without SQLite's copy: `params`
// outlives the statement's run, and Unbind drops the pointers before Exec or
// Query returns.
Status Db::Bind(sqlite3_stmt* stmt, const std::vector<Value>& params) {
  Status s = BindAll(stmt, params);
  if (!s.ok()) Unbind(stmt);
  return s;
}

Status Db::BindAll(sqlite3_stmt* stmt, const std::vector<Value>& params) {
  if (static_cast<int>(params.size()) != sqlite3_bind_parameter_count(stmt)) {
    return Status::InvalidArgument("statement expects " + std::to_string(sqlite3_bind_parameter_count(stmt)) +
                                   " parameters, got " + std::to_string(params.size()));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    int idx = static_cast<int>(i) + 1;
    int rc = std::visit(
        [&](const auto& v) -> int {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::nullptr_t>) return sqlite3_bind_null(stmt, idx);
          if constexpr (std::is_same_v<T, int64_t>) return sqlite3_bind_int64(stmt, idx, v);
          if constexpr (std::is_same_v<T, double>) return sqlite3_bind_double(stmt, idx, v);
          if constexpr (std::is_same_v<T, std::string>)
            return sqlite3_bind_text(stmt, idx, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
          if constexpr (std::is_same_v<T, Blob>)
            return sqlite3_bind_blob(stmt, idx, v.bytes.data(), static_cast<int>(v.bytes.size()), SQLITE_STATIC);
        },
        params[i]);
    if (rc != SQLITE_OK) return Error(rc, "cannot bind parameter " + std::to_string(idx));
  }
  return Status::OK();
}

void Db::Unbind(sqlite3_stmt* stmt) {
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
}

Result<int64_t> Db::Exec(std::string_view sql, const std::vector<Value>& params) {
  auto stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  IDEM_RETURN_IF_ERROR(Bind(*stmt, params));
  int rc;
  while ((rc = sqlite3_step(*stmt)) == SQLITE_ROW) {
  }
  Unbind(*stmt);
  if (rc != SQLITE_DONE) return Error(rc, "statement failed");
  return static_cast<int64_t>(sqlite3_changes64(db_));
}

Result<Rows> Db::Query(std::string_view sql, const std::vector<Value>& params) {
  auto stmt_or = Prepare(sql);
  if (!stmt_or.ok()) return stmt_or.status();
  sqlite3_stmt* stmt = *stmt_or;
  IDEM_RETURN_IF_ERROR(Bind(stmt, params));
  Rows rows;
  int rc;
  const int ncol = sqlite3_column_count(stmt);
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    Row row;
    row.reserve(ncol);
    for (int c = 0; c < ncol; ++c) {
      switch (sqlite3_column_type(stmt, c)) {
        case SQLITE_NULL:
          row.emplace_back(nullptr);
          break;
        case SQLITE_INTEGER:
          row.emplace_back(static_cast<int64_t>(sqlite3_column_int64(stmt, c)));
          break;
        case SQLITE_FLOAT:
          row.emplace_back(sqlite3_column_double(stmt, c));
          break;
        case SQLITE_BLOB: {
          const char* p = static_cast<const char*>(sqlite3_column_blob(stmt, c));
          row.emplace_back(Blob{std::string(p ? p : "", sqlite3_column_bytes(stmt, c))});
          break;
        }
        default: {
          const char* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
          row.emplace_back(std::string(p ? p : "", sqlite3_column_bytes(stmt, c)));
        }
      }
    }
    rows.push_back(std::move(row));
  }
  Unbind(stmt);
  if (rc != SQLITE_DONE) return Error(rc, "query failed");
  return rows;
}

Status Db::ExecScript(std::string_view sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    if ((rc & 0xff) == SQLITE_NOTADB) return Error(rc, "script failed");  // names the file
    return StatusFromSqlite(rc, "script failed: " + msg);
  }
  return Status::OK();
}

Status Db::Begin(bool immediate) {
  // IMMEDIATE takes the write lock now, so two processes never both read a key
  // as absent and then race to insert it: the second waits, then sees the row.
  return RunControl(immediate ? "BEGIN IMMEDIATE" : "BEGIN");
}

Status Db::Commit() { return RunControl("COMMIT"); }

// Prepared and cached like any statement: sqlite3_exec would parse BEGIN and
// COMMIT anew every batch.
Status Db::RunControl(std::string_view sql) {
  auto stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  int rc = sqlite3_step(*stmt);
  sqlite3_reset(*stmt);
  if (rc != SQLITE_DONE) return Error(rc, std::string(sql) + " failed");
  return Status::OK();
}

void Db::Rollback() {
  if (InTransaction()) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

bool Db::InTransaction() const { return sqlite3_get_autocommit(db_) == 0; }

}  // namespace idem::sqlite
