// idem's own tables in a store — consumption records, outbox, dead letters,
// replay grants, audit, reconciliation — have one version, kept in the table
// idem_schema, and ordered migrations between versions.
//
// A store opened with StoreAccess::kCreate (the default) creates what is
// missing and applies pending migrations at open. A runtime without DDL
// rights opens with StoreAccess::kCurrentSchema instead (`create_schema =
// false` in `[store]`): nothing is created, and a store that is not current is
// refused with what is missing. `idem schema print|check|migrate` serves the
// DBA who creates the tables. User guide: docs/stores.md.
#pragma once

#include <string>
#include <vector>

#include "idem/sql.h"

namespace idem {

// The version this idem writes.
inline constexpr int kIdemSchemaVersion = 2;

struct SchemaStep {
  std::string what;  // "create table idem_audit", "set the schema version to 2"
  std::string sql;   // the statements that do it
};

// What a store holds of idem's tables, and what a migration would do.
struct SchemaReport {
  int found_version = 0;  // 0: none of idem's tables
  int current_version = kIdemSchemaVersion;
  std::vector<std::string> missing_tables;
  std::vector<SchemaStep> steps;  // in order; empty: the store is current
  bool current() const { return steps.empty(); }
};

// The statements a DBA applies to an empty database: every table and index,
// and the version row, then the tables a command creates when it first needs
// one (reconciliation's audit). Each is IF NOT EXISTS, so the script is safe to run on
// a store that has some of them (the version row is then the one to check).
std::string SchemaScript(const SqlDialect& dialect);

}  // namespace idem
