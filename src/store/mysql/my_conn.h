// One MariaDB Connector/C connection: connecting and reconnecting with
// back-off, a cache of prepared statements keyed by their SQL, binding Values
// and reading results. Automatic reconnection is off: a silent reconnect
// inside a transaction would drop it. Not thread-safe.
#pragma once

#include <mysql.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "idem/env.h"
#include "idem/mysql_store.h"
#include "idem/sql.h"
#include "idem/status.h"
#include "store/mysql/my_url.h"

namespace idem::mysql {

// What one statement did.
struct Outcome {
  Rows rows;              // the result set, if the statement has one
  int64_t affected = 0;   // rows matched by an UPDATE/DELETE, inserted by an INSERT
  unsigned warnings = 0;  // the statement's warning count
};

class Conn {
 public:
  static Result<std::unique_ptr<Conn>> Open(const ConnectParams& params, const MysqlStoreOptions& options, Env* env);
  ~Conn();
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  // Runs one statement with `?` placeholders and bound values, as a prepared
  // statement (prepared once, then cached).
  Result<Outcome> Run(std::string_view sql, const std::vector<Value>& params);
  // Runs SQL without values by the text protocol: transaction control,
  // savepoints, DDL scripts (several statements separated by ';').
  Status Command(std::string_view sql);
  // "Level Code Message" lines of SHOW WARNINGS, for an error message.
  std::string Warnings();

  // The transaction open on this session, as the store's transactions report
  // it (the client library's own flag is stale after an error, such as the
  // deadlock that ended a transaction). 0: none. START TRANSACTION would
  // silently commit an open one, so Begin checks this first.
  uint64_t OpenTransaction() const { return open_tx_; }
  uint64_t TransactionStarted() { return open_tx_ = ++last_tx_; }
  // Called once transaction `id` is over (committed, rolled back, or ended by
  // the server); a later transaction's id is left alone.
  void TransactionEnded(uint64_t id) {
    if (open_tx_ == id) open_tx_ = 0;
  }
  // False once a statement found the connection lost; Reconnect() restores it.
  bool Healthy() const { return healthy_; }
  // Re-opens the connection, pausing with back-off between attempts.
  Status Reconnect();
  // The server's id for this session (what KILL takes).
  uint64_t SessionId() { return mysql_thread_id(mysql_); }
  // "host:port/db as user" for messages; never the password.
  std::string Describe() const;

 private:
  Conn(const ConnectParams& params, const MysqlStoreOptions& options, Env* env)
      : params_(params), options_(options), env_(env) {}
  Status Connect();
  void CloseStatements();
  Status Fail(unsigned number, const char* sqlstate, const char* message, std::string_view sql);

  ConnectParams params_;
  MysqlStoreOptions options_;
  Env* env_;
  MYSQL* mysql_ = nullptr;
  bool healthy_ = false;
  std::unordered_map<std::string, MYSQL_STMT*> statements_;
  uint64_t open_tx_ = 0;
  uint64_t last_tx_ = 0;
};

}  // namespace idem::mysql
