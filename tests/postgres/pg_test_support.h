// Helpers for tests against the PostgreSQL that scripts/servers/postgres.sh
// starts (its URL in IDEM_TEST_POSTGRES_URL).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "idem/store.h"

namespace idem::testing {

// IDEM_TEST_POSTGRES_URL, or "" when the tests should skip.
std::string PostgresTestUrl();
inline constexpr const char* kNoPostgres =
    "IDEM_TEST_POSTGRES_URL is not set: run scripts/test.sh, or scripts/servers/postgres.sh start and "
    "export the URL it writes to build/test-servers.env";

// Creates a fresh, empty schema in the test database and returns a URL whose
// search_path points at it. Each call makes a new one (name unique per process
// and call). "" on failure, after recording a test failure.
std::string FreshSchemaUrl();

// FreshSchemaUrl(), or "" after GTEST_SKIP() when IDEM_TEST_POSTGRES_URL is not
// set (for a suite's fresh_database, whose caller checks IsSkipped()).
std::string FreshSchemaUrlOrSkip();

// Installs a deferred trigger on the existing table `effects` that terminates
// the session while the first COMMIT that inserted into it runs: a real lost
// connection during COMMIT, which does not land. Sequence lose_commit_once
// counts the rows the trigger saw.
void LoseTheFirstCommitIntoEffects(Store& store);

// Runs SQL on a separate maintenance connection to the test database (used to
// kill connections and to inspect state behind a store's back).
bool RunMaintenanceSql(const std::string& sql);
// The first column of the first row of `sql` on a maintenance connection, or -1.
int64_t MaintenanceInt(const std::string& sql);

// Opens a PostgreSQL store or records a test failure and returns null.
std::unique_ptr<Store> OpenPgStoreOrFail(const std::string& url);

}  // namespace idem::testing
