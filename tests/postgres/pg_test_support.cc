#include "postgres/pg_test_support.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <optional>

#include "idem/postgres_store.h"

namespace idem::testing {

std::string PostgresTestUrl() {
  const char* url = std::getenv("IDEM_TEST_POSTGRES_URL");
  return url ? url : "";
}

namespace {

// Runs `sql` on a fresh maintenance connection; the text of the first value, or nullopt on failure.
std::optional<std::string> Maintenance(const std::string& sql) {
  PGconn* conn = PQconnectdb(PostgresTestUrl().c_str());
  PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);  // "does not exist, skipping"
  std::optional<std::string> out;
  if (PQstatus(conn) != CONNECTION_OK) {
    ADD_FAILURE() << "maintenance connection failed: " << PQerrorMessage(conn);
  } else {
    PGresult* res = PQexec(conn, sql.c_str());
    if (PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK)
      out = PQntuples(res) > 0 && PQnfields(res) > 0 ? PQgetvalue(res, 0, 0) : "";
    else ADD_FAILURE() << "[" << sql << "] failed: " << PQresultErrorMessage(res);
    PQclear(res);
  }
  PQfinish(conn);
  return out;
}

}  // namespace

bool RunMaintenanceSql(const std::string& sql) { return Maintenance(sql).has_value(); }

int64_t MaintenanceInt(const std::string& sql) {
  auto v = Maintenance(sql);
  return v && !v->empty() ? std::stoll(*v) : -1;
}

std::string FreshSchemaUrl() {
  static std::atomic<int> n{0};
  const std::string base = PostgresTestUrl();
  const std::string schema = "idem_t_" + std::to_string(getpid()) + "_" + std::to_string(++n);
  // A leftover from an earlier run whose process had the same pid goes first.
  if (!RunMaintenanceSql("DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema)) return "";
  return base + (base.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema;
}

std::unique_ptr<Store> OpenPgStoreOrFail(const std::string& url) {
  auto s = OpenPostgresStore(url, PostgresStoreOptions{}, Env::Default());
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

}  // namespace idem::testing

namespace idem::testing {

std::string FreshSchemaUrlOrSkip() {
  if (!PostgresTestUrl().empty()) return FreshSchemaUrl();
  [] { GTEST_SKIP() << kNoPostgres; }();
  return "";
}

void LoseTheFirstCommitIntoEffects(Store& store) {
  Status s = store.ExecScript(R"sql(
    CREATE SEQUENCE lose_commit_once;
    CREATE FUNCTION lose_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF nextval('lose_commit_once') = 1 THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER lose_commit AFTER INSERT ON effects DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION lose_commit();
  )sql");
  ASSERT_TRUE(s.ok()) << s.ToString();
}

}  // namespace idem::testing
