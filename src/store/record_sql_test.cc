// The record table's schema as every SQL store sets it up (record_sql), seen
// through the SQLite store; the PostgreSQL store runs the same code. (A newer
// schema version is refused: SqliteStoreTest / PgStoreTest.ANewerSchemaIsRefusedWithAdvice.)
#include "store/record_sql.h"

#include <gtest/gtest.h>

#include "idem/store.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

std::unique_ptr<Store> OpenOrFail(const std::string& path) {
  auto s = OpenSqliteStore(path, {}, Env::Default());
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

int64_t CountRows(Store& store, const std::string& sql) {
  auto tx = store.Begin();
  EXPECT_TRUE(tx.ok());
  auto rows = (*tx)->Query(sql, {});
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  return rows.ok() && !rows->empty() ? AsInt((*rows)[0][0]) : -1;
}

TEST(RecordSqlTest, ReopeningAStoreKeepsItsRecordsAndStampsTheVersionOnce) {
  TempDir dir;
  const std::string path = dir.File("records.db");
  {
    auto store = OpenOrFail(path);
    ASSERT_NE(store, nullptr);
    auto tx = store->Begin();
    ASSERT_TRUE(tx.ok());
    ClaimRequest req{"pay:P1", "f1", "m1"};
    ASSERT_TRUE((*tx)->Claim("g", {&req, 1}, 1'000, 61'000).ok());
    ASSERT_TRUE((*tx)->Complete("g", "pay:P1", RecordStatus::kSucceeded, "", "applied", 1'001).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  auto store = OpenOrFail(path);
  ASSERT_NE(store, nullptr);
  auto record = store->ReadRecord("g", "pay:P1");
  ASSERT_TRUE(record.ok() && record->has_value()) << record.status().ToString();
  EXPECT_EQ((*record)->status, RecordStatus::kSucceeded);
  EXPECT_EQ(CountRows(*store, "SELECT COUNT(*) FROM idem_schema"), 1);
  EXPECT_EQ(CountRows(*store, "SELECT MAX(version) FROM idem_schema"), kIdemSchemaVersion);
}

}  // namespace
}  // namespace idem::testing
