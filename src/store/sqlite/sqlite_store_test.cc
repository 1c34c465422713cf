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

// A batch's new records are written in statements of several rows and its
// keys read back through one JSON array: each record must still hold its own
// key, status and texts, keys with quotes and backslashes included.
TEST(SqliteStoreTest, EveryRecordOfALargeBatchKeepsItsOwnContents) {
  auto s = OpenSqliteStore(Dir().File("large-batch.db"), {}, Env::Default());
  ASSERT_TRUE(s.ok());
  const int n = 127;  // 64 + 32 + 16 + 8 + 4 + 2 + 1: every INSERT size
  std::vector<ClaimRequest> reqs;
  for (int i = 0; i < n; ++i)
    reqs.push_back({"k" + std::to_string(i) + (i % 2 ? "\"a\\\\b\"" : ""), "f" + std::to_string(i), "m" + std::to_string(i)});
  {
    auto tx = (*s)->Begin();
    ASSERT_TRUE(tx.ok());
    auto claims = (*tx)->Claim("g", reqs, 10, 20);
    ASSERT_TRUE(claims.ok()) << claims.status().ToString();
    std::vector<std::string> summaries;
    for (int i = 0; i < n; ++i) summaries.push_back("sum" + std::to_string(i));
    std::vector<RecordWrite> done;
    for (int i = 0; i < n; ++i)
      done.push_back({reqs[i].key, i % 3 ? RecordStatus::kSucceeded : RecordStatus::kFailed, i % 3 ? "" : "boom",
                      summaries[i]});
    ASSERT_TRUE((*tx)->WriteRecords("g", done, 15).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  for (int i = 0; i < n; ++i) {
    auto rec = (*s)->ReadRecord("g", reqs[i].key);
    ASSERT_TRUE(rec.ok() && rec->has_value()) << reqs[i].key;
    EXPECT_EQ((*rec)->status, i % 3 ? RecordStatus::kSucceeded : RecordStatus::kFailed) << reqs[i].key;
    EXPECT_EQ((*rec)->fingerprint, "f" + std::to_string(i));
    EXPECT_EQ((*rec)->message_id, "m" + std::to_string(i));
    EXPECT_EQ((*rec)->result_summary, "sum" + std::to_string(i));
    EXPECT_EQ((*rec)->last_error, i % 3 ? "" : "boom");
    EXPECT_EQ((*rec)->attempts, 1);
  }
  std::vector<std::string> ids;
  for (int i = 0; i < n; ++i) ids.push_back("t" + std::to_string(i));
  {
    auto tx = (*s)->Begin();
    auto again = (*tx)->Claim("g", reqs, 30, 40);
    ASSERT_TRUE(again.ok());
    for (int i = 0; i < n; ++i) {
      EXPECT_FALSE((*again)[i].inserted) << reqs[i].key;
      EXPECT_EQ((*again)[i].existing.key, reqs[i].key);
    }
    // Writes to existing records go in UPDATEs of 64, 16 or 1 rows, the last
    // ones padded: each record gets its own write once.
    std::vector<RecordWrite> later;
    for (int i = 0; i < n; ++i)
      later.push_back(i % 2 ? RecordWrite::Touch(reqs[i].key)
                            : RecordWrite{reqs[i].key, RecordStatus::kSucceeded, "", "again", ids[i]});
    ASSERT_TRUE((*tx)->WriteRecords("g", later, 35).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  for (int i = 0; i < n; ++i) {
    auto rec = (*s)->ReadRecord("g", reqs[i].key);
    ASSERT_TRUE(rec.ok() && rec->has_value()) << reqs[i].key;
    EXPECT_EQ((*rec)->attempts, i % 2 ? 1 : 2) << reqs[i].key;
    EXPECT_EQ((*rec)->duplicates, i % 2 ? 1 : 0) << reqs[i].key;
    EXPECT_EQ((*rec)->message_id, i % 2 ? "m" + std::to_string(i) : ids[i]) << reqs[i].key;
    EXPECT_EQ((*rec)->result_summary, i % 2 ? "sum" + std::to_string(i) : "again") << reqs[i].key;
    EXPECT_EQ((*rec)->last_seen_ms, 35) << reqs[i].key;
  }
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
