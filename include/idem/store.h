// Store: the database that holds consumption records and the business data.
//
// One StoreTx is one local transaction. The pipeline claims the records of a
// whole batch, runs each handler under its own savepoint, completes the records
// and commits — so records and effects commit together.
//
// Every backend (SQLite, PostgreSQL, …) passes the same conformance suite.
// Thread safety: a Store may be shared by threads only if its backend says so;
// a StoreTx belongs to one thread.
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

// How one handler execution ended, for StoreTx::Complete. The views must stay
// valid for the call.
struct Completion {
  std::string_view key;
  RecordStatus status = RecordStatus::kSucceeded;
  std::string_view error;
  std::string_view summary;
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
  // engine allows. Existing records are not modified. Results are in request order.
  // A store may write a new key's record later in the same transaction (SQLite
  // writes it once, finished, at Complete — or as PROCESSING at Commit); others
  // see the same outcome, but SQL run through this transaction between Claim and
  // Complete may not find the row.
  // REQUIRES: keys within one call are distinct.
  virtual Result<std::vector<ClaimResult>> Claim(std::string_view group,
                                                 std::span<const ClaimRequest> requests,
                                                 int64_t now_ms, int64_t lease_until_ms) = 0;

  // Takes over an existing record (RELEASED, FAILED on replay, or PROCESSING with
  // an expired lease): it becomes PROCESSING with the new lease and message id.
  virtual Status TakeOver(std::string_view group, const ClaimRequest& req, int64_t now_ms,
                          int64_t lease_until_ms) = 0;

  // Records the end of the handler executions of a batch, in as few statements
  // as the engine allows: each key's record gets its status (SUCCEEDED, FAILED or
  // RELEASED), attempts incremented, error or summary stored. NotFound (naming a
  // key) when a record is missing.
  // REQUIRES: keys within one call are distinct and were claimed or taken over
  // in this transaction.
  virtual Status Complete(std::string_view group, std::span<const Completion> completions, int64_t now_ms) = 0;
  // A batch of one.
  Status Complete(std::string_view group, std::string_view key, RecordStatus status, std::string_view error,
                  std::string_view summary, int64_t now_ms) {
    const Completion one{key, status, error, summary};
    return Complete(group, std::span<const Completion>(&one, 1), now_ms);
  }

  // Counts a duplicate copy and refreshes last_seen.
  virtual Status NoteDuplicate(std::string_view group, std::string_view key, int64_t now_ms) = 0;

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
