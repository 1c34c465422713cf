// Databases as idem's schema version 1 left them: the tables the code of
// commit b6ca331 created, captured per engine in
// tests/fixtures/schema_b6ca331/ENGINE.sql with one record (group
// "old-group", key "pay.success:OLD1", SUCCEEDED) and one PENDING outbox row
// ("out-old"); the record was last seen in 2100, so no sweep of a test takes
// it. The migration tests load one, run `idem schema migrate`, and
// expect the store conformance suite and those rows to hold.
#pragma once

#include <string>

#include "testing/test_util.h"

namespace idem::testing {

// The fixture's SQL for "sqlite", "postgres" or "mysql" (a test failure and "" when unreadable).
std::string OldSchemaFixture(const std::string& engine);

// Creates the SQLite file `path` from the sqlite fixture (a test failure when it cannot).
void CreateOldSqliteStore(const std::string& path);

// Loads `engine`'s fixture into the empty server database `url` through a
// store opened as it is (nothing of idem's is created first).
void LoadOldSchema(const std::string& engine, const std::string& url);

// Runs `idem schema SUBCOMMAND --store URL [extra]` with the CLI at `cli`.
ProcessResult RunIdemSchema(const std::string& cli, const std::string& subcommand, const std::string& url,
                            const std::string& extra = "");

}  // namespace idem::testing
