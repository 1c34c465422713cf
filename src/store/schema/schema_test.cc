// The schema module through the SQLite store: a store opened for a runtime
// without DDL rights (StoreAccess::kCurrentSchema) is refused with what it
// lacks and nothing is created; a created store is current; every dialect
// prints every table. (Old stores and `idem schema`: tests/integration/schema_migration_test.cc.)
#include "store/schema/schema.h"

#include <gtest/gtest.h>

#include <fstream>

#include "idem/store_access.h"
#include "store/schema/tables.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

TEST(SchemaTest, ARuntimeWithoutDdlRightsIsRefusedWithWhatIsMissingAndCreatesNothing) {
  TempDir dir;
  const std::string path = dir.File("business.db");
  {
    auto created = OpenSqliteStore(path, {}, StoreAccess::kAsIs, Env::Default());
    EXPECT_FALSE(created.ok()) << "as-is creates no file";
  }
  std::ofstream(path).close();  // an empty file is an empty SQLite database
  auto refused = OpenSqliteStore(path, {}, StoreAccess::kCurrentSchema, Env::Default());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Status::Code::kInvalidArgument) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("missing tables: idem_schema, idem_records, idem_outbox"),
            std::string::npos)
      << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("idem schema migrate"), std::string::npos);

  auto as_is = OpenSqliteStore(path, {}, StoreAccess::kAsIs, Env::Default());
  ASSERT_TRUE(as_is.ok()) << as_is.status().ToString();
  auto report = (*as_is)->CheckSchema();
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->found_version, 0);
  EXPECT_EQ(report->missing_tables.size(), schema::StoreTables().size());
  EXPECT_EQ(QueryInt(**as_is, "SELECT COUNT(*) FROM sqlite_master"), 0) << "checking created something";

  auto migrated = (*as_is)->MigrateSchema();
  ASSERT_TRUE(migrated.ok()) << migrated.status().ToString();
  EXPECT_EQ(migrated->steps.size(), schema::StoreTables().size() + 1) << "every table, then the version";
  auto again = (*as_is)->CheckSchema();
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->current());
  EXPECT_EQ(again->found_version, kIdemSchemaVersion);
  as_is->reset();
  auto allowed = OpenSqliteStore(path, {}, StoreAccess::kCurrentSchema, Env::Default());
  EXPECT_TRUE(allowed.ok()) << allowed.status().ToString();
}

TEST(SchemaTest, EveryDialectPrintsEveryTableAndTheVersionRow) {
  for (const char* name : {"sqlite", "postgres", "mysql"}) {
    const SqlDialect* d = FindSqlDialect(name);
    ASSERT_NE(d, nullptr) << name;
    const std::string script = SchemaScript(*d);
    std::vector<schema::SchemaTable> all = schema::StoreTables();
    all.insert(all.end(), schema::CommandTables().begin(), schema::CommandTables().end());
    for (const schema::SchemaTable& t : all)
      EXPECT_TRUE(script.find("CREATE TABLE IF NOT EXISTS " + std::string(t.name) + " (") != std::string::npos ||
                  script.find("CREATE TABLE IF NOT EXISTS " + d->QuoteIdentifier(t.name) + " (") != std::string::npos)
          << name << " lacks " << t.name;
    EXPECT_NE(script.find("INSERT INTO idem_schema (version) VALUES (" + std::to_string(kIdemSchemaVersion) + ")"),
              std::string::npos);
    EXPECT_EQ(script.find(" IN ("), std::string::npos) << name << ": a CHECK written with IN";
  }
  EXPECT_EQ(FindSqlDialect("mariadb"), FindSqlDialect("mysql"));
  EXPECT_EQ(FindSqlDialect("oracle"), nullptr);
}

}  // namespace
}  // namespace idem::testing
