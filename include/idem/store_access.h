// Opening a store without creating anything: for the commands and probes that
// only look (record listings, outbox statistics, the dead-letter audit, the
// readiness probe), which must never turn a wrong path into a new, empty store
// that then reports healthy. OpenStore and OpenSqliteStore (idem/store.h)
// create what is missing: they are the StoreAccess::kCreate of these.
//
// Thread safety: the functions may be called from any thread; the Store they
// open follows the rules in idem/store.h.
#pragma once

#include <memory>
#include <string>

#include "idem/env.h"
#include "idem/status.h"
#include "idem/store.h"

namespace idem {

// What opening a store may create.
enum class StoreAccess {
  // A missing SQLite file and idem's missing tables are created, and pending
  // schema migrations applied: what a consumer or the outbox relay does at start.
  kCreate,
  // Nothing is created or written while opening: no file, no table, no change
  // of the SQLite journal mode. Refused, with what to check:
  //   a missing SQLite file           NotFound "the SQLite store 'P' does not exist: check the path …"
  //   a database without idem_records NotFound "… is not an idem store (no idem_records table): …"
  //   a file that is not SQLite       InvalidArgument "'P' is not an SQLite database …"
  // A store written by a newer idem is Permanent, as with kCreate. Statements
  // run later through the store may still write (records sweep deletes).
  kExisting,
  // For a runtime without DDL rights (`create_schema = false` in `[store]`):
  // nothing is created or written while opening, and idem's tables must be
  // there at the current version (idem/schema.h); otherwise InvalidArgument
  // naming what is missing and how to create it (`idem schema migrate`).
  kCurrentSchema,
  // For `idem schema check|migrate`: nothing is created, written or required
  // while opening; the store is taken as it is (a missing SQLite file is still
  // NotFound, and no file is created).
  kAsIs,
};

// OpenStore(url, env) with the given access; the same URLs and errors.
Result<std::unique_ptr<Store>> OpenStore(const std::string& url, Env* env, StoreAccess access);

// OpenSqliteStore(path, options, env) with the given access.
Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path, const SqliteStoreOptions& options,
                                               StoreAccess access, Env* env);

}  // namespace idem
