// The PostgreSQL store: consumption records and business data in a shared
// PostgreSQL database, safe for several consumer processes at once. It passes the same conformance suite as the SQLite store.
//
// One Store is one connection: use one per thread (a Pipeline per thread, each
// with its own Store). Transactions are READ COMMITTED; Claim locks the
// records it finds (FOR UPDATE), so two workers never both take over one key.
//
// The database must use UTF-8. Statements are prepared once per connection and
// cached (so a transaction-mode connection pooler in front must keep them).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "idem/env.h"
#include "idem/status.h"
#include "idem/store.h"
#include "idem/store_access.h"

namespace idem {

struct PostgresStoreOptions {
  // How long one connection attempt may take (libpq connect_timeout; it counts
  // whole seconds, at least 2). A URL parameter connect_timeout wins. Default 5 s.
  int connect_timeout_s = 5;
  // When the connection is found lost at the start of a transaction or a record
  // read, it is re-opened up to this many times, pausing reconnect_backoff_ms
  // (doubling) between attempts. After that the call returns a retryable
  // Unavailable status and the pipeline backs off. Defaults: 3 attempts, 50 ms.
  int reconnect_attempts = 3;
  int64_t reconnect_backoff_ms = 50;
  // What opening may create (idem/store_access.h): by default the idem
  // tables are created when missing and migrated when old.
  StoreAccess access = StoreAccess::kCreate;
};

// Opens a store. `url` is a libpq connection string or URI
// ("postgresql://user@host:port/db?options=-csearch_path%3Dmyschema"). Creates
// the idem tables in the first schema of the search path if they are missing
// (unless options.access says otherwise).
Result<std::unique_ptr<Store>> OpenPostgresStore(const std::string& url, const PostgresStoreOptions& options,
                                                 Env* env);

}  // namespace idem
