// Helpers for tests against the MariaDB that scripts/servers/mariadb.sh starts
// (its URL in IDEM_TEST_MYSQL_URL).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "idem/store.h"

namespace idem::testing {

// IDEM_TEST_MYSQL_URL, or "" when the tests should skip.
std::string MysqlTestUrl();
inline constexpr const char* kNoMysql =
    "IDEM_TEST_MYSQL_URL is not set: run scripts/test.sh, or scripts/servers/mariadb.sh start and "
    "export the URL it writes to build/test-servers.env";

// Creates a fresh, empty database on the test server and returns a URL naming
// it. Each call makes a new one (name unique per process and call). "" on
// failure, after recording a test failure.
std::string FreshDatabaseUrl();

// FreshDatabaseUrl(), or "" after GTEST_SKIP() when IDEM_TEST_MYSQL_URL is not
// set (for a suite's fresh_database, whose caller checks IsSkipped()).
std::string FreshDatabaseUrlOrSkip();

// Runs SQL on a separate admin connection to the test server (used to kill
// sessions, block commits and inspect state behind a store's back). `database`
// is the one to use, "" for none.
bool RunAdminSql(const std::string& sql, const std::string& database = "");
// The first column of the first row of `sql` on an admin connection, or -1.
int64_t AdminInt(const std::string& sql, const std::string& database = "");

// Whether server session `id` waits for a row lock (read from SHOW ENGINE
// INNODB STATUS: information_schema.INNODB_TRX lags behind on MariaDB 10.11).
bool SessionWaitsForRowLock(int64_t id);
// Whether it waits for a lock on a row of `table` (of any database).
bool SessionWaitsForRowOf(int64_t id, std::string_view table);

// The server session behind a store's connection (CONNECTION_ID()), or 0
// after recording a test failure.
int64_t SessionId(Store& store);
// Waits up to `timeout_ms` until session `id` runs COMMIT (held there, e.g. by
// an admin's BACKUP STAGE BLOCK_COMMIT).
bool WaitUntilSessionRunsCommit(int64_t id, int64_t timeout_ms);

// The database a URL names ("mysql://u:p@h:1/db" → "db").
std::string DatabaseOf(const std::string& url);

// An admin session that stays open across calls (to hold a lock).
class AdminSession {
 public:
  AdminSession();
  ~AdminSession();
  bool Run(const std::string& sql);

 private:
  void* mysql_ = nullptr;
};

// Opens a MySQL store or records a test failure and returns null.
std::unique_ptr<Store> OpenMyStoreOrFail(const std::string& url);

}  // namespace idem::testing
