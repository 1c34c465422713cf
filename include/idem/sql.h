// SqlTx: the slice of a store transaction that business handlers may use.
//
// SQL text uses `?` placeholders on every backend; values are always bound,
// never spliced into the text. A backend whose native syntax differs
// (PostgreSQL's $1) translates the placeholders, not the values.
//
// Thread safety: a SqlTx is its store's transaction on one connection: use it
// only on the thread that began it (a handler: the thread that called it), and
// not after the handler returns.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "idem/status.h"

namespace idem {

// A bound parameter or a column value. Text and blobs are both std::string;
// Blob marks bytes that must be stored as a BLOB (no text encoding).
struct Blob {
  std::string bytes;
};
using Value = std::variant<std::nullptr_t, int64_t, double, std::string, Blob>;

// The SQL engine behind a transaction.
enum class Dialect { kSqlite, kPostgres, kMySql };

// "sqlite", "postgres", "mysql": for logs and reports.
std::string_view DialectName(Dialect dialect);

using Row = std::vector<Value>;
using Rows = std::vector<Row>;

// Convenience accessors; they return the fallback when the value has another type.
int64_t AsInt(const Value& v, int64_t fallback = 0);
std::string AsText(const Value& v);
bool IsNull(const Value& v);

class SqlTx {
 public:
  virtual ~SqlTx() = default;

  // Runs a statement that returns no rows. Result: rows changed.
  // A UNIQUE violation comes back as Status::AlreadyExists; the transaction stays
  // usable only if the caller wrapped the statement in a savepoint (PostgreSQL
  // aborts the whole transaction on any error).
  virtual Result<int64_t> Exec(std::string_view sql, const std::vector<Value>& params) = 0;

  // Runs a query and returns all its rows.
  virtual Result<Rows> Query(std::string_view sql, const std::vector<Value>& params) = 0;

  // Savepoints. `name` must be an identifier chosen by code, never by message content.
  virtual Status Savepoint(std::string_view name) = 0;
  virtual Status RollbackTo(std::string_view name) = 0;
  virtual Status Release(std::string_view name) = 0;

  // The SQL dialect, for the rare handler that needs engine-specific syntax.
  virtual idem::Dialect Dialect() const = 0;
};

}  // namespace idem
