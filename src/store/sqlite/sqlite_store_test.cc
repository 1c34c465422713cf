#include <gtest/gtest.h>

#include "conformance/store_conformance.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

// One temp folder per process, removed at exit; each test gets a fresh file inside it.
TempDir& Dir() {
  static TempDir dir;
  return dir;
}

StoreFactory SqliteFactory() {
  return StoreFactory{
      "sqlite",
      [] {
        static int n = 0;
        return Dir().File("conformance-" + std::to_string(++n) + ".db");
      },
      [](const std::string& path, Env* env) -> std::unique_ptr<Store> {
        auto s = OpenSqliteStore(path, SqliteStoreOptions{}, env);
        EXPECT_TRUE(s.ok()) << s.status().ToString();
        return s.ok() ? std::move(*s) : nullptr;
      }};
}

INSTANTIATE_TEST_SUITE_P(Sqlite, StoreConformance, ::testing::Values(SqliteFactory()),
                         [](const auto& info) { return info.param.name; });

TEST(SqliteStoreTest, ANewerSchemaIsRefusedWithAdvice) {
  std::string path = Dir().File("newer.db");
  {
    auto s = OpenSqliteStore(path, {}, Env::Default());
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE((*s)->ExecScript("UPDATE idem_schema SET version = 99").ok());
  }
  auto s = OpenSqliteStore(path, {}, Env::Default());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("upgrade idem"), std::string::npos);
}

// The status CHECK (written without IN, which SQLite would pay for on every
// insert) still refuses what is not a record status.
TEST(SqliteStoreTest, TheRecordTableRefusesAnUnknownStatus) {
  auto s = OpenSqliteStore(Dir().File("status.db"), {}, Env::Default());
  ASSERT_TRUE(s.ok());
  for (const char* status : {"PROCESSING", "SUCCEEDED", "FAILED", "RELEASED"})
    EXPECT_TRUE((*s)->ExecScript(std::string("INSERT INTO idem_records (consumer_group, key, status, fingerprint, "
                                             "message_id, lease_until_ms, first_seen_ms, last_seen_ms) VALUES "
                                             "('g', '") + status + "', '" + status + "', 'f', 'm', 0, 0, 0)")
                    .ok())
        << status;
  Status bogus = (*s)->ExecScript(
      "INSERT INTO idem_records (consumer_group, key, status, fingerprint, message_id, lease_until_ms, "
      "first_seen_ms, last_seen_ms) VALUES ('g', 'x', 'DONE', 'f', 'm', 0, 0, 0)");
  EXPECT_FALSE(bogus.ok());
  EXPECT_NE(bogus.message().find("CHECK"), std::string::npos) << bogus.ToString();
}

TEST(SqliteStoreTest, UnwritableFolderSaysWhatToCheck) {
  auto s = OpenSqliteStore("/nonexistent-folder/x.db", {}, Env::Default());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("folder exists"), std::string::npos) << s.status().ToString();
}

TEST(SqliteStoreTest, OpenStoreAcceptsSqliteUrlsAndRefusesUnknownSchemes) {
  EXPECT_TRUE(OpenStore("sqlite:" + Dir().File("url.db"), Env::Default()).ok());
  EXPECT_TRUE(OpenStore("sqlite:" + Dir().File("fast.db") + "?synchronous=normal", Env::Default()).ok());
  auto opt = OpenStore("sqlite:" + Dir().File("x.db") + "?fsync=maybe", Env::Default());
  ASSERT_FALSE(opt.ok());
  EXPECT_NE(opt.status().message().find("synchronous=normal"), std::string::npos);
  auto bad = OpenStore("oracle://x", Env::Default());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unsupported store URL"), std::string::npos);
}

}  // namespace
}  // namespace idem::testing
