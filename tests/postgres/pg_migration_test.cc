// A PostgreSQL store created by idem's schema version 1 (the DDL of commit
// b6ca331, tests/fixtures/schema_b6ca331/postgres.sql) is migrated by `idem
// schema migrate`, keeps its rows, and then passes the store conformance
// suite; `idem schema check` creates nothing on a fresh schema.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "conformance/store_conformance.h"
#include "postgres/pg_test_support.h"
#include "testing/schema_fixture.h"

namespace idem::testing {
namespace {

void SkipWithoutPostgres() { GTEST_SKIP() << kNoPostgres; }

std::string OldMigratedSchema() {
  if (PostgresTestUrl().empty()) {
    SkipWithoutPostgres();
    return "";
  }
  const std::string url = FreshSchemaUrl();
  LoadOldSchema("postgres", url);
  const ProcessResult r = RunIdemSchema(IDEM_CLI_PATH, "migrate", url);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return url;
}

INSTANTIATE_TEST_SUITE_P(MigratedPostgres, StoreConformance,
                         ::testing::Values(StoreFactory{"migrated_postgres", &OldMigratedSchema,
                                                        [](const std::string& url, Env*) {
                                                          return OpenPgStoreOrFail(url);
                                                        }}),
                         [](const auto& info) { return info.param.name; });

// The schema a FreshSchemaUrl points at.
std::string SchemaOf(const std::string& url) { return url.substr(url.find("search_path%3D") + 14); }

int64_t TablesIn(const std::string& schema) {
  return MaintenanceInt("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '" + schema + "'");
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class PgSchemaCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (PostgresTestUrl().empty()) GTEST_SKIP() << kNoPostgres;
  }
};

TEST_F(PgSchemaCliTest, CheckOfAFreshSchemaCreatesNoTable) {
  const std::string url = FreshSchemaUrl();
  const ProcessResult check = RunIdemSchema(IDEM_CLI_PATH, "check", url, "--json");
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  const auto j = nlohmann::json::parse(check.out);
  EXPECT_EQ(j["found_version"], 0);
  EXPECT_EQ(j["dialect"], "postgres");
  EXPECT_EQ(j["missing_tables"].size(), 6u) << j.dump();
  EXPECT_EQ(TablesIn(SchemaOf(url)), 0) << "a check must not create anything";
}

TEST_F(PgSchemaCliTest, AnOldStoreIsMigratedInOneTransactionAndKeepsItsRows) {
  const std::string url = FreshSchemaUrl();
  LoadOldSchema("postgres", url);
  const std::string schema = SchemaOf(url);
  EXPECT_EQ(TablesIn(schema), 3);

  const ProcessResult before = RunIdemSchema(IDEM_CLI_PATH, "check", url);
  EXPECT_EQ(before.exit_code, 1) << before.out << before.err;
  EXPECT_TRUE(Contains(before.out, "schema version 1, this idem needs version 2")) << before.out;
  EXPECT_FALSE(Contains(before.out, "rewrite")) << "PostgreSQL keeps its tables: " << before.out;
  EXPECT_EQ(TablesIn(schema), 3) << "check changed the store";

  const ProcessResult migrate = RunIdemSchema(IDEM_CLI_PATH, "migrate", url);
  ASSERT_EQ(migrate.exit_code, 0) << migrate.out << migrate.err;
  EXPECT_TRUE(Contains(migrate.out, "in one transaction")) << migrate.out;
  EXPECT_TRUE(Contains(migrate.out, "create table idem_audit")) << migrate.out;
  EXPECT_EQ(TablesIn(schema), 6);
  EXPECT_EQ(MaintenanceInt("SELECT MAX(version) FROM " + schema + ".idem_schema"), 2);
  EXPECT_EQ(MaintenanceInt("SELECT COUNT(*) FROM " + schema + ".idem_outbox WHERE message_id = 'out-old' AND "
                           "state = 'PENDING' AND payload = '\\x6f6c64'::bytea"),
            1);

  auto store = OpenPgStoreOrFail(url);
  ASSERT_NE(store, nullptr);
  auto old = store->ReadRecord("old-group", "pay.success:OLD1");
  ASSERT_TRUE(old.ok() && old->has_value());
  EXPECT_EQ((*old)->status, RecordStatus::kSucceeded);
  store.reset();

  const ProcessResult after = RunIdemSchema(IDEM_CLI_PATH, "check", url);
  EXPECT_EQ(after.exit_code, 0) << after.out << after.err;
}

}  // namespace
}  // namespace idem::testing
