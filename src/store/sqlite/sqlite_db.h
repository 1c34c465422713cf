// A thin owner of one SQLite connection: opening with our pragmas, a cache of
// prepared statements keyed by their SQL text, binding Values, and mapping
// SQLite result codes to Status codes that say what to do.
// Shared by the SQLite store and the embedded queue. Not thread-safe.
#pragma once

#include <sqlite3.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "idem/sql.h"
#include "idem/status.h"

namespace idem::sqlite {

struct OpenOptions {
  bool synchronous_full = true;
  int busy_timeout_ms = 10'000;
  bool wal = true;
  bool create = true;  // false: a missing file is an error (SQLITE_CANTOPEN), never created
};

class Db {
 public:
  static Result<std::unique_ptr<Db>> Open(const std::string& path, const OpenOptions& options);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // Runs a statement without results (cached, parameters bound). Returns changes().
  Result<int64_t> Exec(std::string_view sql, const std::vector<Value>& params = {});
  Result<Rows> Query(std::string_view sql, const std::vector<Value>& params = {});
  // Runs a script of several statements with no parameters (schema DDL only).
  Status ExecScript(std::string_view sql);

  Status Begin(bool immediate = true);
  Status Commit();
  void Rollback();  // best effort; safe when no transaction is open
  bool InTransaction() const;

  sqlite3* raw() { return db_; }
  const std::string& path() const { return path_; }

 private:
  explicit Db(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Result<sqlite3_stmt*> Prepare(std::string_view sql);
  Status Bind(sqlite3_stmt* stmt, const std::vector<Value>& params);  // on failure, unbinds what it bound
  Status BindAll(sqlite3_stmt* stmt, const std::vector<Value>& params);
  void Unbind(sqlite3_stmt* stmt);  // resets, and drops the bound pointers into the caller's params
  Status RunControl(std::string_view sql);  // BEGIN, COMMIT: no parameters, no rows
  Status Error(int rc, std::string_view what) const;

  sqlite3* db_;
  std::string path_;
  // Looked up by the caller's string_view as is: the SQL of a record write is
  // ~200 bytes, and a std::string key built per statement run was a malloc per message.
  struct SqlHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, sqlite3_stmt*, SqlHash, std::equal_to<>> cache_;
};

// Maps an SQLite result code to a Status that tells the caller what to do.
Status StatusFromSqlite(int rc, std::string message);

}  // namespace idem::sqlite
