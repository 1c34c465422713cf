// Store: the database that holds consumption records and the business data.
//
// One StoreTx is one local transaction. The pipeline claims the records of a
// whole batch, runs each handler under its own savepoint, writes the records'
// changes as one list and commits — so records and effects commit together.
//
// Every backend (SQLite, PostgreSQL, …) passes the same conformance suite.
// Thread safety: every Store idem opens is one database connection (SQLite's is
// opened without SQLite's own mutex), so a Store and its StoreTx are used by
// one thread at a time: open one Store per pipeline (thread), and another for
// work on other threads (a sweeper task on the Env's thread). Many Stores may
// share one database: on SQLite writers take turns on the file's lock
// (busy_timeout_ms), on PostgreSQL and MySQL the records' claims and leases
// keep workers apart.
// User guide: docs/stores.md (each store, its URL and the record table).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "idem/env.h"
#include "idem/record.h"
#include "idem/schema.h"
#include "idem/sql.h"
#include "idem/status.h"

namespace idem {

struct ClaimRequest {
  std::string key;
  std::string fingerprint;
  std::string message_id;
};

// What Claim found for one key.
struct ClaimResult {
  bool inserted = false;  // true: a new PROCESSING record was created for this transaction
  Record existing;        // when !inserted: the record as it was (unchanged by Claim)
};

// One change to a record at the end of a batch, for StoreTx::WriteRecords.
// The views must stay valid for the call.
struct RecordWrite {
  enum class Kind {
    kComplete,  // a handler ran: status, attempts + 1, error or summary stored, the lease over
    kTouch,     // a copy of a finished message came: duplicates + 1, last_seen refreshed
  };
  std::string_view key;
  RecordStatus status = RecordStatus::kSucceeded;  // kComplete: SUCCEEDED, FAILED or RELEASED
  std::string_view error;                          // kComplete
  std::string_view summary;                        // kComplete
  // kComplete of a record taken over (RELEASED, FAILED on replay, or PROCESSING
  // with an expired lease): the message that ran, which the record names from
  // now on. Empty keeps the record's message id (the one Claim wrote).
  std::string_view message_id;
  Kind kind = Kind::kComplete;

  // A completion.
  RecordWrite(std::string_view key, RecordStatus status, std::string_view error = {}, std::string_view summary = {},
              std::string_view message_id = {})
      : key(key), status(status), error(error), summary(summary), message_id(message_id) {}
  // A touch.
  static RecordWrite Touch(std::string_view key) {
    RecordWrite w(key, RecordStatus::kSucceeded);
    w.kind = Kind::kTouch;
    return w;
  }
};

// One column of a table, as the engine's catalogue describes it.
struct TableColumn {
  // What the declared type holds, in the engine's own rules (SQLite's type
  // affinity; PostgreSQL's and MySQL's data types).
  enum class Kind {
    kInteger,  // SQLite INTEGER affinity; smallint, integer, bigint, tinyint, ...
    kDecimal,  // exact numbers with a fraction: numeric, decimal (SQLite NUMERIC affinity)
    kReal,     // floating point: real, double precision, float
    kText,     // text, varchar, char (MySQL enum and set too)
    kBlob,     // bytea, blob, binary
    kAny,      // SQLite with no declared type: the column holds any value
    kOther,    // anything else: dates, booleans, uuid, json, user-defined types
  };
  std::string name;
  std::string declared_type;  // the engine's name for it, for messages ("BIGINT", "character varying")
  Kind kind = Kind::kOther;
};

class StoreTx : public SqlTx {
 public:
  // The columns of the table (or view) an unquoted `table` in this
  // transaction's SQL names — PostgreSQL folds it to lower case and looks
  // along the search_path, MySQL looks in the current database — in their
  // order, read from the engine's catalogue with the name as a bound
  // parameter. nullopt when there is no such table. `table` is a plain
  // identifier (guards/sql_identifier.h); this transaction writes nothing.
  virtual Result<std::optional<std::vector<TableColumn>>> DescribeTable(std::string_view table) = 0;

  // Inserts a PROCESSING record with the given lease for every key that has none,
  // and reads the record of every key that has one, in as few statements as the
  // engine allows. Existing records are not modified (a take-over is written
  // with its completion, by WriteRecords). Results are in request order.
  // PostgreSQL and MySQL insert the new rows here, so SQL run through this
  // transaction finds them, PROCESSING. SQLite holds the write lock from BEGIN
  // and writes a new key's row once, finished, at WriteRecords (as PROCESSING at
  // Commit or at the next Claim if no write came): there, SQL run through this
  // transaction between Claim and WriteRecords does not find a new key's row.
  // REQUIRES: keys within one call are distinct.
  virtual Result<std::vector<ClaimResult>> Claim(std::string_view group,
                                                 std::span<const ClaimRequest> requests,
                                                 int64_t now_ms, int64_t lease_until_ms) = 0;

  // Writes the batch's record changes — completions (take-overs folded in) and
  // touches of copies — in as few statements as the engine allows. NotFound
  // (naming a key) when a record is missing.
  // REQUIRES: keys within one call are distinct.
  virtual Status WriteRecords(std::string_view group, std::span<const RecordWrite> writes, int64_t now_ms) = 0;
  // A batch of one completion.
  Status Complete(std::string_view group, std::string_view key, RecordStatus status, std::string_view error,
                  std::string_view summary, int64_t now_ms) {
    const RecordWrite one{key, status, error, summary};
    return WriteRecords(group, std::span<const RecordWrite>(&one, 1), now_ms);
  }

  // Commits. On success the transaction is over. A Status with IsInDoubt() means
  // the outcome is unknown: re-read the records (Store::ReadRecord) before acting.
  virtual Status Commit() = 0;
  // Rolls back (also done by the destructor if neither was called).
  virtual void Rollback() = 0;
};

class Store {
 public:
  virtual ~Store() = default;

  // Starts a write transaction.
  virtual Result<std::unique_ptr<StoreTx>> Begin() = 0;

  // Reads one record outside any transaction (used to resolve an in-doubt commit).
  virtual Result<std::optional<Record>> ReadRecord(std::string_view group, std::string_view key) = 0;

  // Deletes records last seen before `older_than_ms`, at most `max_rows` of them.
  // Returns how many were deleted (the sweeper calls this in a loop).
  virtual Result<int64_t> SweepRecords(int64_t older_than_ms, int64_t max_rows) = 0;

  // Runs `sql` (DDL for business tables, e.g. the payments schema) in its own transaction.
  virtual Status ExecScript(std::string_view sql) = 0;

  // What this store holds of idem's own tables and what a migration would do
  // (idem/schema.h), read from the catalogue: nothing is written.
  virtual Result<SchemaReport> CheckSchema() = 0;
  // Creates idem's missing tables and applies pending migrations, holding the
  // store's schema lock, in one transaction where the engine allows DDL in one
  // (SqlDialect::TransactionalDdl). Returns what was done (no steps: current).
  virtual Result<SchemaReport> MigrateSchema() = 0;

  virtual const SqlDialect& Dialect() const = 0;
};

struct SqliteStoreOptions {
  // synchronous=FULL survives power loss; NORMAL survives a process crash but may
  // lose the last transactions on power loss. Default: true (FULL).
  bool durable_against_power_loss = true;
  // How long a writer waits for another process's lock before giving up with a
  // retryable Busy status. Default 10 s.
  int busy_timeout_ms = 10'000;
};

// Opens (creating if needed) a SQLite store. `path` ":memory:" gives a private
// in-memory database (used by the simulator).
Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path, const SqliteStoreOptions& options,
                                               Env* env);

// Opens a store from a URL: "sqlite:PATH", "sqlite://PATH" or a bare path;
// "postgresql://…" with the PostgreSQL store (-DIDEM_WITH_POSTGRES=ON);
// "mysql://…" or "mariadb://…" with the MySQL store (-DIDEM_WITH_MYSQL=ON). An
// unknown scheme, or one whose backend the build leaves out, is an
// InvalidArgument that says what to use or which CMake option builds it.
// Defined in the idem::connect library.
Result<std::unique_ptr<Store>> OpenStore(const std::string& url, Env* env);

}  // namespace idem
