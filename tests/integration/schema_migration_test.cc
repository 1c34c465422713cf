// `idem schema print|check|migrate` on SQLite, and the migration of a store
// idem's schema version 1 created (tests/fixtures/schema_b6ca331): after
// `idem schema migrate` it passes the store conformance suite and keeps its
// rows. Judged from exit codes, output, the catalogue and the rows.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "conformance/store_conformance.h"
#include "integration/run_idem.h"
#include "testing/schema_fixture.h"

namespace idem::testing {
namespace {

TempDir& Dir() {
  static TempDir dir;
  return dir;
}

std::string NewPath(const std::string& stem) {
  static int n = 0;
  return Dir().File(stem + "-" + std::to_string(++n) + ".db");
}

// An old store, migrated by the CLI: what the conformance suite then runs on.
StoreFactory MigratedSqliteFactory() {
  return StoreFactory{"migrated_sqlite",
                      [] {
                        const std::string path = NewPath("migrated");
                        CreateOldSqliteStore(path);
                        const ProcessResult r = RunIdemSchema(IDEM_CLI_PATH, "migrate", "sqlite:" + path);
                        EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
                        return path;
                      },
                      [](const std::string& path, Env* env) -> std::unique_ptr<Store> {
                        auto s = OpenSqliteStore(path, SqliteStoreOptions{}, env);
                        EXPECT_TRUE(s.ok()) << s.status().ToString();
                        return s.ok() ? std::move(*s) : nullptr;
                      }};
}

INSTANTIATE_TEST_SUITE_P(MigratedSqlite, StoreConformance, ::testing::Values(MigratedSqliteFactory()),
                         [](const auto& info) { return info.param.name; });

// The first column of the first row of `sql` on the file, read with SQLite itself.
std::string Scalar(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  std::string out = "<no row>";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    out = sqlite3_column_text(st, 0) ? reinterpret_cast<const char*>(sqlite3_column_text(st, 0)) : "<null>";
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(SchemaCliTest, CheckOfAMissingSqliteFileReportsEverythingMissingAndCreatesNoFile) {
  const std::string path = NewPath("missing");
  const ProcessResult text = RunIdemSchema(IDEM_CLI_PATH, "check", "sqlite:" + path);
  EXPECT_EQ(text.exit_code, 1) << text.out << text.err;
  EXPECT_TRUE(Contains(text.out, "no idem tables")) << text.out;
  EXPECT_TRUE(Contains(text.out, "create table idem_records")) << text.out;
  EXPECT_TRUE(Contains(text.err, "idem schema migrate")) << text.err;

  const ProcessResult json = RunIdemSchema(IDEM_CLI_PATH, "check", "sqlite:" + path, "--json");
  EXPECT_EQ(json.exit_code, 1) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["current"], false);
  EXPECT_EQ(j["found_version"], 0);
  EXPECT_EQ(j["current_version"], kIdemSchemaVersion);
  EXPECT_EQ(j["dialect"], "sqlite");
  EXPECT_EQ(j["missing_tables"].size(), 6u) << j.dump();
  EXPECT_FALSE(std::filesystem::exists(path)) << "a check must not create the store";
}

TEST(SchemaCliTest, AnOldStoreIsMigratedInOneTransactionAndKeepsItsRows) {
  const std::string path = NewPath("old"), url = "sqlite:" + path;
  CreateOldSqliteStore(path);

  const ProcessResult before = RunIdemSchema(IDEM_CLI_PATH, "check", url);
  EXPECT_EQ(before.exit_code, 1) << before.out << before.err;
  EXPECT_TRUE(Contains(before.out, "schema version 1, this idem needs version 2")) << before.out;
  EXPECT_TRUE(Contains(before.out, "missing tables: idem_dead_letters idem_replay_grants idem_audit")) << before.out;
  EXPECT_TRUE(Contains(before.out, "rewrite SQLite's idem_records and idem_outbox")) << before.out;
  EXPECT_EQ(Scalar(path, "SELECT MAX(version) FROM idem_schema"), "1") << "check changed the store";
  EXPECT_EQ(Scalar(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'idem_audit'"), "0");

  const ProcessResult migrate = RunIdemSchema(IDEM_CLI_PATH, "migrate", url);
  ASSERT_EQ(migrate.exit_code, 0) << migrate.out << migrate.err;
  EXPECT_TRUE(Contains(migrate.out, "from schema version 1 to 2, in one transaction")) << migrate.out;
  EXPECT_TRUE(Contains(migrate.out, "create table idem_audit")) << migrate.out;

  // The costly CHECK is gone from the outbox; the rows are where they were.
  EXPECT_FALSE(Contains(Scalar(path, "SELECT sql FROM sqlite_master WHERE name = 'idem_outbox'"), " IN ("));
  EXPECT_EQ(Scalar(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'idem_outbox_due'"), "1");
  EXPECT_EQ(Scalar(path, "SELECT state || ' ' || hex(payload) FROM idem_outbox WHERE message_id = 'out-old'"),
            "PENDING 6F6C64");
  EXPECT_EQ(Scalar(path, "SELECT MAX(version) FROM idem_schema"), "2");
  EXPECT_EQ(Scalar(path, "SELECT COUNT(*) FROM idem_schema"), "1");
  auto store = OpenSqliteStore(path, SqliteStoreOptions{}, Env::Default());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto old = (*store)->ReadRecord("old-group", "pay.success:OLD1");
  ASSERT_TRUE(old.ok() && old->has_value());
  EXPECT_EQ((*old)->status, RecordStatus::kSucceeded);
  EXPECT_EQ((*old)->result_summary, "applied before");
  store->reset();

  const ProcessResult after = RunIdemSchema(IDEM_CLI_PATH, "check", url);
  EXPECT_EQ(after.exit_code, 0) << after.out << after.err;
  EXPECT_TRUE(Contains(after.out, "schema version 2, current")) << after.out;
  const ProcessResult again = RunIdemSchema(IDEM_CLI_PATH, "migrate", url);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(Contains(again.out, "nothing to do")) << again.out;
}

// Older still: a record table whose CHECK lists its statuses with IN.
TEST(SchemaCliTest, ARecordTableWithTheCostlyCheckIsRewritten) {
  const std::string path = NewPath("in-check");
  CreateOldSqliteStore(path);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const char* rebuild =
        "ALTER TABLE idem_records RENAME TO r0;"
        "CREATE TABLE idem_records (consumer_group TEXT NOT NULL, key TEXT NOT NULL, status TEXT NOT NULL CHECK "
        "(status IN ('PROCESSING','SUCCEEDED','FAILED','RELEASED')), fingerprint TEXT NOT NULL, message_id TEXT NOT "
        "NULL, attempts INTEGER NOT NULL DEFAULT 0, duplicates INTEGER NOT NULL DEFAULT 0, lease_until_ms INTEGER NOT "
        "NULL, first_seen_ms INTEGER NOT NULL, last_seen_ms INTEGER NOT NULL, last_error TEXT NOT NULL DEFAULT '', "
        "result_summary TEXT NOT NULL DEFAULT '', PRIMARY KEY (consumer_group, key)) WITHOUT ROWID;"
        "INSERT INTO idem_records SELECT * FROM r0; DROP TABLE r0;";
    ASSERT_EQ(sqlite3_exec(db, rebuild, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  const ProcessResult migrate = RunIdemSchema(IDEM_CLI_PATH, "migrate", "sqlite:" + path);
  ASSERT_EQ(migrate.exit_code, 0) << migrate.out << migrate.err;
  EXPECT_FALSE(Contains(Scalar(path, "SELECT sql FROM sqlite_master WHERE name = 'idem_records'"), " IN ("));
  EXPECT_TRUE(Contains(Scalar(path, "SELECT sql FROM sqlite_master WHERE name = 'idem_records'"), "WITHOUT ROWID"));
  EXPECT_EQ(Scalar(path, "SELECT status FROM idem_records WHERE key = 'pay.success:OLD1'"), "SUCCEEDED");
  EXPECT_EQ(Scalar(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'idem_records_by_last_seen'"), "1");
}

// What a DBA applies by hand makes a store that idem finds current.
TEST(SchemaCliTest, ThePrintedDdlMakesACurrentStore) {
  const ProcessResult by_dialect = Idem({"schema", "print", "--dialect", "sqlite"});
  ASSERT_EQ(by_dialect.exit_code, 0) << by_dialect.err;
  const std::string url_path = NewPath("printed-url");
  const ProcessResult by_url = Idem({"schema", "print", "--store", "sqlite:" + url_path});
  EXPECT_EQ(by_url.exit_code, 0) << by_url.err;
  EXPECT_EQ(by_url.out, by_dialect.out);
  EXPECT_FALSE(std::filesystem::exists(url_path)) << "print opens nothing";

  const std::string path = NewPath("printed");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, by_dialect.out.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
  const ProcessResult check = RunIdemSchema(IDEM_CLI_PATH, "check", "sqlite:" + path);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;

  for (const char* dialect : {"postgres", "mysql"}) {
    const ProcessResult other = Idem({"schema", "print", "--dialect", dialect});
    EXPECT_EQ(other.exit_code, 0) << other.err;
    EXPECT_TRUE(Contains(other.out, "idem_reconcile_audit")) << other.out;
    EXPECT_TRUE(Contains(other.out, "INSERT INTO idem_schema (version) VALUES (2);")) << other.out;
  }
  const ProcessResult wrong = Idem({"schema", "print", "--dialect", "oracle"});
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_TRUE(Contains(wrong.err, "sqlite, postgres or mysql")) << wrong.err;
}

}  // namespace
}  // namespace idem::testing
