// ChangeBalances over a real SQLite store (and MariaDB: tests/mysql).
#include "guards/change_balance_rows.h"

#include <gtest/gtest.h>

#include "guards/guard_test_fixture.h"
#include "guards/insert_once_rows.h"

namespace idem::guards {
namespace {

const BalanceColumn kAccounts{"accounts", "user_id", "balance_cents"};

class ChangeBalancesTest : public GuardTest {
 protected:
  void SetUp() override {
    Open("CREATE TABLE accounts (user_id VARCHAR(64) PRIMARY KEY, balance_cents BIGINT NOT NULL);"
         "INSERT INTO accounts VALUES ('u1', 1000), ('u2', 0), ('u3', 40);");
  }

  int64_t Balance(const std::string& user) {
    return Int("SELECT balance_cents FROM accounts WHERE user_id = ?", {user});
  }

  BalancesChanged Change(const std::vector<BalanceDelta>& deltas, int64_t floor = 0) {
    auto r = ChangeBalances(*tx_, kAccounts, deltas, floor);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : BalancesChanged{};
  }
};

TEST_F(ChangeBalancesTest, AppliesEveryKeyInOneCall) {
  BalancesChanged r = Change({{"u1", -199}, {"u2", 50}, {"u3", -40}});
  EXPECT_EQ(r.keys, 3);
  EXPECT_EQ(r.changed, 3);
  EXPECT_TRUE(r.all());
  EXPECT_EQ(Balance("u1"), 801);
  EXPECT_EQ(Balance("u2"), 50);
  EXPECT_EQ(Balance("u3"), 0) << "down to exactly the floor is allowed";
}

TEST_F(ChangeBalancesTest, AShortOrMissingKeyIsLeftAloneAndCountsAsNotChanged) {
  BalancesChanged r = Change({{"u1", -100}, {"u3", -41}, {"nobody", -1}});
  EXPECT_EQ(r.keys, 3);
  EXPECT_EQ(r.changed, 1);
  EXPECT_FALSE(r.all());
  EXPECT_EQ(Balance("u1"), 900);
  EXPECT_EQ(Balance("u3"), 40) << "a short balance must not move";
}

TEST_F(ChangeBalancesTest, DeltasOfOneKeyAreSummedAndCheckedAsIfAppliedInOrder) {
  BalancesChanged r = Change({{"u1", -600}, {"u2", 10}, {"u1", -400}});
  EXPECT_EQ(r.keys, 2);
  EXPECT_EQ(r.changed, 2);
  EXPECT_EQ(Balance("u1"), 0);
  EXPECT_EQ(Balance("u2"), 10);

  // Together they would leave u1 short: neither deduction happens.
  r = Change({{"u1", -1}, {"u1", -1}}, -1);
  EXPECT_EQ(r.changed, 0);
  EXPECT_EQ(Balance("u1"), 0);

  // One by one, -50 before +100 would take u3 (40) below the floor on the way,
  // although the total is positive.
  r = Change({{"u3", -50}, {"u3", 100}});
  EXPECT_EQ(r.changed, 0);
  EXPECT_EQ(Balance("u3"), 40);
  r = Change({{"u3", 100}, {"u3", -50}});
  EXPECT_EQ(r.changed, 1);
  EXPECT_EQ(Balance("u3"), 90);
}

TEST_F(ChangeBalancesTest, AFloorAllowsAnOverdraft) {
  EXPECT_TRUE(Change({{"u2", -500}}, -500).all());
  EXPECT_EQ(Balance("u2"), -500);
  EXPECT_FALSE(Change({{"u2", -1}}, -500).all());
}

TEST_F(ChangeBalancesTest, MoreKeysThanOneStatementTakesAreSplit) {
  std::vector<std::vector<Column>> rows;
  for (int i = 1; i <= 300; ++i) rows.push_back({{"user_id", "k" + std::to_string(i)}, {"balance_cents", int64_t{5}}});
  auto inserted = InsertOnceRows(*tx_, "accounts", rows);
  ASSERT_TRUE(inserted.ok()) << inserted.status().ToString();
  ASSERT_EQ(*inserted, 300);
  std::vector<BalanceDelta> deltas;
  for (int i = 1; i <= 300; ++i) deltas.push_back({"k" + std::to_string(i), -i % 2 - 1});
  BalancesChanged r = Change(deltas);
  EXPECT_EQ(r.keys, 300);
  EXPECT_EQ(r.changed, 300);
  EXPECT_EQ(Int("SELECT SUM(balance_cents) FROM accounts WHERE user_id LIKE 'k%'"), 300 * 5 - 150 * 2 - 150);
}

TEST_F(ChangeBalancesTest, AZeroDeltaOrABadNameIsACallerError) {
  auto r = ChangeBalances(*tx_, kAccounts, {{"u1", -1}, {"u2", 0}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(Balance("u1"), 1000) << "nothing is written before the check";
  r = ChangeBalances(*tx_, {"accounts; DROP", "user_id", "balance_cents"}, {{"u1", -1}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
}

TEST_F(ChangeBalancesTest, NoDeltasChangeNothing) {
  BalancesChanged r = Change({});
  EXPECT_EQ(r.keys, 0);
  EXPECT_TRUE(r.all());
}

}  // namespace
}  // namespace idem::guards
