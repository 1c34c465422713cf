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

// The SQL engine behind a store: how its statements spell what engines spell
// differently. Each store owns one (Store::Dialect(), SqlTx::Dialect()), and
// code outside the store asks it rather than naming the engine, so a new store
// brings its dialect and nothing else changes. Every text it returns is fixed
// by code, never built from message content. Thread safety: immutable.
class SqlDialect {
 public:
  virtual ~SqlDialect() = default;

  // "sqlite", "postgres", "mysql": for logs, reports and `idem schema print --dialect`.
  virtual std::string_view Name() const = 0;

  // ---- statements ----
  // `name` as a quoted identifier ("name", `name`), quote characters inside doubled,
  // so a keyword (`key`, `user`) works as a column name.
  virtual std::string QuoteIdentifier(std::string_view name) const = 0;
  // A bound integer where the engine would otherwise not know the type (the
  // THEN of a CASE): "?", "CAST(? AS BIGINT)".
  virtual std::string_view IntegerParameter() const = 0;
  // The two-argument maximum: "MAX" or "GREATEST".
  virtual std::string_view Greatest() const = 0;
  // Appended to a SELECT whose rows this transaction changes next: " FOR UPDATE",
  // or "" where a write transaction already holds the whole database (SQLite).
  virtual std::string_view ForUpdate() const = 0;
  // Appended to a SELECT that claims rows: rows another transaction holds are
  // skipped rather than waited for (" FOR UPDATE SKIP LOCKED"; "" as ForUpdate).
  virtual std::string_view ForUpdateSkipLocked() const = 0;
  // Appended to an INSERT so that a row a unique key already holds is skipped
  // inside the statement (" ON CONFLICT DO NOTHING"); "" when the engine has no
  // such clause that skips only duplicates (see SqlTx::InsertNew).
  virtual std::string_view SkipDuplicatesClause() const = 0;
  // True when a multi-row INSERT may repeat a row (it is skipped like any
  // duplicate), so sets can be padded to their shape (store/set_shape.h); false
  // when a duplicate fails the statement, and sets are cut into shapes instead.
  virtual bool InsertSkipsRepeatedRows() const = 0;
  // True when an IN subquery may carry a LIMIT (MySQL refuses one).
  virtual bool LimitInSubquery() const = 0;
  // A query returning the path of the file the database lives in (one row, one
  // column), or "" for a server database.
  virtual std::string_view DatabaseFileQuery() const = 0;
  // Statistics refresh after a bulk load ("ANALYZE"), or "" when the engine
  // keeps none that a fresh table lacks.
  virtual std::string_view RefreshStatistics() const = 0;
  // A query of the server's durability settings as (name, value) rows, or "".
  virtual std::string_view DurabilitySettingsQuery() const = 0;
  // A query counting the tables (not views) named by its one parameter where
  // this connection's unqualified names find them. Reads the catalogue only.
  virtual std::string_view TableExistsQuery() const = 0;
  // A query returning the CREATE TABLE text of the table named by its one
  // parameter, where the engine keeps it (SQLite); "" otherwise.
  virtual std::string_view TableDefinitionQuery() const = 0;

  // ---- column types and table options, for idem's own tables ----
  // An increasing 64-bit primary key the engine assigns ("BIGSERIAL PRIMARY KEY").
  virtual std::string_view AutoIncrementId() const = 0;
  // Milliseconds since the epoch, and other 64-bit integers.
  virtual std::string_view BigInt() const = 0;
  // Text compared byte-wise and indexable, of at most `max_bytes` bytes (keys, groups).
  virtual std::string ByteKey(int max_bytes) const = 0;
  // Short text of at most `max_chars` characters that can be indexed (a status, a name).
  virtual std::string BoundedText(int max_chars) const = 0;
  // Text of any length (up to 16 MiB), never indexed.
  virtual std::string_view LongText() const = 0;
  // Text kept as the bytes it came as (a producer's topic or header need not be UTF-8).
  virtual std::string_view RawText() const = 0;
  // Bytes kept exactly (payloads).
  virtual std::string_view Bytes() const = 0;
  // After the closing parenthesis of CREATE TABLE: engine and byte-wise
  // collation; `clustered` asks for a table stored in primary-key order
  // without a second index beside it (SQLite's WITHOUT ROWID).
  virtual std::string TableOptions(bool clustered) const = 0;
  // True when DDL can run inside a transaction and be rolled back with it
  // (MySQL and MariaDB commit each DDL statement at once).
  virtual bool TransactionalDdl() const = 0;
};

// The dialect named "sqlite", "postgres" or "mysql" (also "postgresql",
// "mariadb"), or nullptr. The dialects are text only, so every build has all
// three, whichever stores it was built with.
const SqlDialect* FindSqlDialect(std::string_view name);

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

  // The store's SQL dialect, for SQL that engines spell differently.
  virtual const SqlDialect& Dialect() const = 0;

  // Runs `insert` (INSERT INTO t (...) VALUES (...)[, (...)...]) so that a row a
  // unique key already holds is skipped, and returns how many rows went in;
  // the transaction stays usable. Any other failure (NOT NULL, CHECK) is an
  // error. Where a duplicate fails the whole statement
  // (!Dialect().InsertSkipsRepeatedRows()), a statement of several rows with a
  // duplicate among them inserts nothing and is AlreadyExists: cut it into rows.
  // `rows` is the number of rows the statement carries.
  Result<int64_t> InsertNew(std::string_view insert, const std::vector<Value>& params, size_t rows);
};

}  // namespace idem
