// The declared schema check on PostgreSQL: the catalogue read through
// information_schema in the search_path's schema, an unquoted name folded to
// lower case as PostgreSQL folds it, and sql steps compiled by EXPLAIN inside
// a transaction that a failed statement would otherwise spoil.
#include <gtest/gtest.h>

#include "postgres/pg_test_support.h"
#include "testing/declared_schema_cases.h"

namespace idem::testing {
namespace {

TEST(PgDeclaredSchemaTest, StepsAreCheckedAgainstTheSearchPathsTables) {
  if (PostgresTestUrl().empty()) GTEST_SKIP() << kNoPostgres;
  auto store = OpenPgStoreOrFail(FreshSchemaUrl());
  ASSERT_NE(store, nullptr);
  CreateDeclaredSchemaTables(*store);
  ExpectDeclaredSchemaCases(*store);
}

TEST(PgDeclaredSchemaTest, AnUnquotedNameIsFoldedAndAnotherSchemasTableIsNotSeen) {
  if (PostgresTestUrl().empty()) GTEST_SKIP() << kNoPostgres;
  const std::string mine = FreshSchemaUrl(), other = FreshSchemaUrl();
  auto store = OpenPgStoreOrFail(mine);
  auto elsewhere = OpenPgStoreOrFail(other);
  ASSERT_NE(store, nullptr);
  ASSERT_NE(elsewhere, nullptr);
  ASSERT_TRUE(store->ExecScript("CREATE TABLE accounts (owner TEXT PRIMARY KEY, balance NUMERIC(18, 2))").ok());
  ASSERT_TRUE(elsewhere->ExecScript("CREATE TABLE ledger (pay_id TEXT)").ok());
  auto tx = store->Begin();
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  auto accounts = (*tx)->DescribeTable("Accounts");
  ASSERT_TRUE(accounts.ok()) << accounts.status().ToString();
  ASSERT_TRUE(accounts->has_value());
  ASSERT_EQ((*accounts)->size(), 2u);
  EXPECT_EQ((*accounts)->at(1).name, "balance");
  EXPECT_EQ((*accounts)->at(1).declared_type, "numeric");
  EXPECT_EQ((*accounts)->at(1).kind, TableColumn::Kind::kDecimal);
  auto ledger = (*tx)->DescribeTable("ledger");
  ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
  EXPECT_FALSE(ledger->has_value()) << "a table outside the search_path is not the one the step would write";
}

}  // namespace
}  // namespace idem::testing
