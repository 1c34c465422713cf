// The MySQL/MariaDB store: consumption records and business data in a shared
// MySQL-compatible database (checked against MariaDB 10.11), safe for several
// consumer processes at once. It passes the same conformance suite as the
// SQLite and PostgreSQL stores.
//
// One Store is one connection: use one per thread (a Pipeline per thread, each
// with its own Store). Transactions are READ COMMITTED; Claim locks the
// records it finds (FOR UPDATE), so two workers never both take over one key.
// A deadlock ends the whole transaction (MySQL rolls it back, savepoints
// included): the store then refuses every later statement of it with
// Status::TransactionConflict, and the caller runs the batch again.
// User guide: docs/stores.md (MariaDB section).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "idem/env.h"
#include "idem/status.h"
#include "idem/store.h"
#include "idem/store_access.h"

namespace idem {

struct MysqlStoreOptions {
  // How long one connection attempt may take. A URL parameter connect_timeout
  // (seconds) wins. Default 5 s.
  int connect_timeout_s = 5;
  // When the connection is found lost at the start of a transaction or a record
  // read, it is re-opened up to this many times, pausing reconnect_backoff_ms
  // (doubling) between attempts. Never inside a transaction: a silent
  // reconnect would drop it. Defaults: 3 attempts, 50 ms.
  int reconnect_attempts = 3;
  int64_t reconnect_backoff_ms = 50;
  // What opening may create (idem/store_access.h): by default the idem
  // tables are created when missing and migrated when old.
  StoreAccess access = StoreAccess::kCreate;
};

// Opens a store. `url` is "mysql://USER:PASSWORD@HOST:PORT/DB" (or mariadb://;
// user and password percent-encoded; port 3306 when left out; optional
// "?connect_timeout=S"). Creates the idem tables in DB if they are missing
// (unless options.access says otherwise).
Result<std::unique_ptr<Store>> OpenMysqlStore(const std::string& url, const MysqlStoreOptions& options, Env* env);

}  // namespace idem
