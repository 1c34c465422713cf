// A MariaDB store created by idem's schema version 1 (the DDL of commit
// b6ca331, tests/fixtures/schema_b6ca331/mysql.sql) is migrated by `idem
// schema migrate`, keeps its rows, and then passes the store conformance
// suite; `idem schema check` creates nothing in a fresh database.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "conformance/store_conformance.h"
#include "idem/mysql_store.h"
#include "mysql/my_test_support.h"
#include "store/mysql/my_url.h"
#include "testing/schema_fixture.h"

namespace idem::testing {
namespace {

void SkipWithoutMysql() { GTEST_SKIP() << kNoMysql; }

std::string OldMigratedDatabase() {
  if (MysqlTestUrl().empty()) {
    SkipWithoutMysql();
    return "";
  }
  const std::string url = FreshDatabaseUrl();
  LoadOldSchema("mysql", url);
  const ProcessResult r = RunIdemSchema(IDEM_CLI_PATH, "migrate", url);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return url;
}

INSTANTIATE_TEST_SUITE_P(MigratedMysql, StoreConformance,
                         ::testing::Values(StoreFactory{"migrated_mysql", &OldMigratedDatabase,
                                                        [](const std::string& url, Env*) {
                                                          return OpenMyStoreOrFail(url);
                                                        }}),
                         [](const auto& info) { return info.param.name; });

std::string DatabaseOf(const std::string& url) { return mysql::ParseMysqlUrl(url)->database; }

int64_t TablesIn(const std::string& database) {
  return AdminInt("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '" + database + "'");
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class MySchemaCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (MysqlTestUrl().empty()) GTEST_SKIP() << kNoMysql;
  }
};

TEST_F(MySchemaCliTest, CheckOfAFreshDatabaseCreatesNoTable) {
  const std::string url = FreshDatabaseUrl();
  const ProcessResult check = RunIdemSchema(IDEM_CLI_PATH, "check", url, "--json");
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  const auto j = nlohmann::json::parse(check.out);
  EXPECT_EQ(j["found_version"], 0);
  EXPECT_EQ(j["dialect"], "mysql");
  EXPECT_EQ(j["missing_tables"].size(), 6u) << j.dump();
  EXPECT_EQ(TablesIn(DatabaseOf(url)), 0) << "a check must not create anything";
}

TEST_F(MySchemaCliTest, AnOldStoreIsMigratedStepByStepAndKeepsItsRows) {
  const std::string url = FreshDatabaseUrl();
  LoadOldSchema("mysql", url);
  const std::string db = DatabaseOf(url);
  EXPECT_EQ(TablesIn(db), 3);

  const ProcessResult before = RunIdemSchema(IDEM_CLI_PATH, "check", url);
  EXPECT_EQ(before.exit_code, 1) << before.out << before.err;
  EXPECT_TRUE(Contains(before.out, "schema version 1, this idem needs version 2")) << before.out;
  EXPECT_EQ(TablesIn(db), 3) << "check changed the store";

  const ProcessResult migrate = RunIdemSchema(IDEM_CLI_PATH, "migrate", url);
  ASSERT_EQ(migrate.exit_code, 0) << migrate.out << migrate.err;
  EXPECT_TRUE(Contains(migrate.out, "commit each DDL statement at once")) << migrate.out;
  EXPECT_TRUE(Contains(migrate.out, "create table idem_audit")) << migrate.out;
  EXPECT_EQ(TablesIn(db), 6);
  EXPECT_EQ(AdminInt("SELECT MAX(version) FROM idem_schema", db), 2);
  EXPECT_EQ(AdminInt("SELECT COUNT(*) FROM idem_outbox WHERE message_id = 'out-old' AND state = 'PENDING' AND "
                     "payload = x'6f6c64'",
                     db),
            1);

  auto store = OpenMyStoreOrFail(url);
  ASSERT_NE(store, nullptr);
  auto old = store->ReadRecord("old-group", "pay.success:OLD1");
  ASSERT_TRUE(old.ok() && old->has_value());
  EXPECT_EQ((*old)->status, RecordStatus::kSucceeded);
  store.reset();

  const ProcessResult after = RunIdemSchema(IDEM_CLI_PATH, "check", url);
  EXPECT_EQ(after.exit_code, 0) << after.out << after.err;

  // `idem records list` quotes the reserved word `key` here (it used to fail with a syntax error).
  const ProcessResult listed =
      RunProcess({IDEM_CLI_PATH, "records", "list", "--store", url, "--status", "SUCCEEDED", "--json"});
  EXPECT_EQ(listed.exit_code, 0) << listed.out << listed.err;
  EXPECT_TRUE(Contains(listed.out, "pay.success:OLD1")) << listed.out;
}

}  // namespace
}  // namespace idem::testing
