// The declared schema check on MariaDB: the catalogue read through
// information_schema in the connection's database, and sql steps compiled by
// a prepared EXPLAIN.
#include <gtest/gtest.h>

#include "mysql/my_test_support.h"
#include "testing/declared_schema_cases.h"

namespace idem::testing {
namespace {

TEST(MyDeclaredSchemaTest, StepsAreCheckedAgainstTheDatabasesTables) {
  if (MysqlTestUrl().empty()) GTEST_SKIP() << kNoMysql;
  auto store = OpenMyStoreOrFail(FreshDatabaseUrl());
  ASSERT_NE(store, nullptr);
  CreateDeclaredSchemaTables(*store);
  ExpectDeclaredSchemaCases(*store);
}

TEST(MyDeclaredSchemaTest, AnotherDatabasesTableIsNotSeen) {
  if (MysqlTestUrl().empty()) GTEST_SKIP() << kNoMysql;
  auto store = OpenMyStoreOrFail(FreshDatabaseUrl());
  auto elsewhere = OpenMyStoreOrFail(FreshDatabaseUrl());
  ASSERT_NE(store, nullptr);
  ASSERT_NE(elsewhere, nullptr);
  ASSERT_TRUE(elsewhere->ExecScript("CREATE TABLE ledger (pay_id VARCHAR(64))").ok());
  ASSERT_TRUE(store->ExecScript("CREATE TABLE accounts (owner VARCHAR(64) PRIMARY KEY, balance DECIMAL(18, 2))").ok());
  auto tx = store->Begin();
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  auto accounts = (*tx)->DescribeTable("accounts");
  ASSERT_TRUE(accounts.ok()) << accounts.status().ToString();
  ASSERT_TRUE(accounts->has_value());
  ASSERT_EQ((*accounts)->size(), 2u);
  EXPECT_EQ((*accounts)->at(1).name, "balance");
  EXPECT_EQ((*accounts)->at(1).kind, TableColumn::Kind::kDecimal);
  auto ledger = (*tx)->DescribeTable("ledger");
  ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
  EXPECT_FALSE(ledger->has_value()) << "a table of another database is not the one the step would write";
}

}  // namespace
}  // namespace idem::testing
