// Reading and migrating idem's tables through a store's transaction (the
// stores' side of idem/schema.h). A store holds its own schema lock around
// Migrate so that processes starting together do not migrate at once.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "idem/schema.h"
#include "idem/sql.h"
#include "idem/status.h"
#include "idem/store.h"
#include "idem/store_access.h"

namespace idem::schema {

// What `tx`'s database holds and what a migration would do, from the
// catalogue and idem_schema only: nothing is written. Permanent when the
// store was written by a newer idem.
Result<SchemaReport> Inspect(SqlTx& tx);

// Inspects through `tx`, then runs every step with `run_script` (DDL, in the
// transaction where the engine allows). Returns what was done.
Result<SchemaReport> Migrate(SqlTx& tx, const std::function<Status(std::string_view)>& run_script);

// What Inspect says of a database without any of idem's tables (a SQLite
// file that does not exist yet): every table missing, every one to create.
SchemaReport ReportForEmptyStore(const SqlDialect& dialect);

// Runs the steps of `report` in order with `run_script`.
Status RunSteps(const SchemaReport& report, const std::function<Status(std::string_view)>& run_script);

// OK when `report` is current; otherwise InvalidArgument naming what is
// missing or old in `what` (the store's name) and how to create it, for a
// runtime that may not create tables.
Status RequireCurrent(const SchemaReport& report, const std::string& what);

// What every store's open does with `access` once it is connected:
// kCreate migrates (MigrateSchema), kCurrentSchema checks and refuses with
// RequireCurrent naming `what`, kExisting runs `require_idem_store` (the
// store's own read of idem_records), kAsIs nothing.
Status ApplyStoreAccess(Store& store, StoreAccess access, const std::function<Status()>& require_idem_store,
                        const std::string& what);

// Whether `table` exists (where the connection's unqualified names find it),
// from the catalogue: nothing is written, and a missing table is no error.
Result<bool> HasTable(SqlTx& tx, std::string_view table);

}  // namespace idem::schema
