// The business guards on PostgreSQL, where a failed statement aborts the whole
// transaction: a duplicate must come back as kAlreadyApplied with the
// transaction still usable and the earlier writes kept.
#include <gtest/gtest.h>

#include "idem/guards.h"
#include "postgres/pg_test_support.h"

namespace idem::testing {
namespace {

TEST(PgGuardsTest, InsertOnceDuplicateKeepsTheTransactionAndEarlierWrites) {
  if (PostgresTestUrl().empty()) GTEST_SKIP() << kNoPostgres;
  auto store = OpenPgStoreOrFail(FreshSchemaUrl());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store
                  ->ExecScript("CREATE TABLE flows (biz_no VARCHAR(64) NOT NULL, type VARCHAR(16) NOT NULL, "
                               "amount_cents BIGINT NOT NULL, CONSTRAINT uk_flows UNIQUE (biz_no, type));"
                               "CREATE TABLE other (v BIGINT NOT NULL)")
                  .ok());
  auto tx = store->Begin();
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  auto flow = [&](const std::string& biz_no, int64_t amount) {
    return InsertOnce(**tx, "flows", {{"biz_no", biz_no}, {"type", "PAY_DEDUCT"}, {"amount_cents", amount}});
  };
  auto first = flow("P1", -199);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, InsertOutcome::kInserted);
  ASSERT_TRUE((*tx)->Exec("INSERT INTO other (v) VALUES (?)", {int64_t{7}}).ok());
  auto again = flow("P1", -199);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, InsertOutcome::kAlreadyApplied);
  auto after = (*tx)->Exec("INSERT INTO other (v) VALUES (?)", {int64_t{8}});
  ASSERT_TRUE(after.ok()) << "the transaction must stay usable: " << after.status().ToString();
  ASSERT_TRUE((*tx)->Commit().ok());

  auto check = store->Begin();
  ASSERT_TRUE(check.ok());
  auto rows = (*check)->Query("SELECT (SELECT COUNT(*) FROM flows), (SELECT COUNT(*) FROM other)", {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(AsInt((*rows)[0][0]), 1);
  EXPECT_EQ(AsInt((*rows)[0][1]), 2);
}

// A failure that is not a duplicate is an error, never "already applied"; the
// savepoint around the handler (as the pipeline keeps one per message) makes
// the transaction usable again.
TEST(PgGuardsTest, InsertOnceOtherFailuresAreErrorsAndASavepointRecovers) {
  if (PostgresTestUrl().empty()) GTEST_SKIP() << kNoPostgres;
  auto store = OpenPgStoreOrFail(FreshSchemaUrl());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->ExecScript("CREATE TABLE flows (biz_no VARCHAR(64) NOT NULL UNIQUE, amount_cents BIGINT NOT NULL)")
                  .ok());
  auto tx = store->Begin();
  ASSERT_TRUE(tx.ok());
  ASSERT_TRUE((*tx)->Savepoint("idem_msg").ok());
  auto bad = InsertOnce(**tx, "flows", {{"biz_no", "P1"}, {"amount_cents", nullptr}});
  ASSERT_FALSE(bad.ok());
  EXPECT_FALSE(bad.status().IsAlreadyExists()) << bad.status().ToString();
  ASSERT_TRUE((*tx)->RollbackTo("idem_msg").ok());
  ASSERT_TRUE((*tx)->Release("idem_msg").ok());
  auto good = InsertOnce(**tx, "flows", {{"biz_no", "P1"}, {"amount_cents", int64_t{1}}});
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_EQ(*good, InsertOutcome::kInserted);
  ASSERT_TRUE((*tx)->Commit().ok());
}

}  // namespace
}  // namespace idem::testing
