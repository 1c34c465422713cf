// One libpq connection: connecting and reconnecting with back-off, a cache of
// prepared statements keyed by their SQL, binding Values and reading results.
// Not thread-safe.
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "idem/env.h"
#include "idem/postgres_store.h"
#include "idem/sql.h"
#include "idem/status.h"

namespace idem::pg {

class Params;  // pg_values.h

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

class Conn {
 public:
  static Result<std::unique_ptr<Conn>> Open(const std::string& url, const PostgresStoreOptions& options, Env* env);
  ~Conn();
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  // Runs one statement with bound parameters. `sql` uses `?` placeholders (or
  // PostgreSQL's own $n when it has no `?`). Prepared once, then cached.
  Result<ResultPtr> Run(std::string_view sql, const std::vector<Value>& params);
  // Runs parameterless SQL by the simple protocol: BEGIN, COMMIT, DDL scripts.
  // With deferred commands queued it goes out with them, as one statement of
  // the same pipeline.
  Result<ResultPtr> Command(std::string_view sql);

  // Queues a parameterless command whose answer nobody waits for (SAVEPOINT,
  // RELEASE): it is sent with the next statement, in the same round trip
  // (libpq's pipeline mode), so a handler's savepoint costs no round trip of
  // its own. Should it fail, that next statement fails with its error.
  void Defer(std::string sql) { deferred_.push_back(std::move(sql)); }
  // Forgets what is queued (the transaction is being rolled back).
  void DiscardDeferred() { deferred_.clear(); }

  bool Healthy() const { return PQstatus(conn_) == CONNECTION_OK; }
  bool InTransaction() const { return PQtransactionStatus(conn_) != PQTRANS_IDLE; }
  // Re-opens a lost connection, pausing with back-off between attempts.
  Status Reconnect();
  // The raw handle, for mapping errors (pg_status.h).
  PGconn* raw() { return conn_; }
  // "host:port/db as user" for messages; never the password.
  std::string Describe() const;

 private:
  Conn(PGconn* conn, const PostgresStoreOptions& options, Env* env) : conn_(conn), options_(options), env_(env) {}
  Result<ResultPtr> Check(PGresult* res, std::string_view sql);
  // What RunPipelined sends after the deferred commands.
  struct Pipelined {
    const char* name;          // a prepared statement to run, or null to run `text` unprepared
    const std::string* text;   // with `name`: prepared as `name` first (then *prepared says if it was)
    const Params* params;      // null: parameterless
  };
  // Sends the deferred commands, then the statement, in one pipeline; returns
  // the statement's result, or the first deferred command's error.
  Result<ResultPtr> RunPipelined(const Pipelined& st, std::string_view sql, bool* prepared = nullptr);

  struct Prepared {
    std::string name;
  };
  PGconn* conn_;
  PostgresStoreOptions options_;
  Env* env_;
  std::unordered_map<std::string, Prepared> statements_;  // key: SQL + parameter type signature
  int next_statement_ = 0;
  std::vector<std::string> deferred_;  // see Defer
};

}  // namespace idem::pg
