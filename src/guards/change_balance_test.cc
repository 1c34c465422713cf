// ChangeBalance over a real SQLite store.
#include <gtest/gtest.h>

#include "guards/guard_test_fixture.h"
#include "idem/guards.h"

namespace idem {
namespace {

const BalanceColumn kAccounts{"accounts", "user_id", "balance_cents"};

class ChangeBalanceTest : public guards::GuardTest {
 protected:
  void SetUp() override {
    Open("CREATE TABLE accounts (user_id VARCHAR(64) PRIMARY KEY, balance_cents BIGINT NOT NULL);"
         "INSERT INTO accounts VALUES ('u1', 1000), ('u2', 0);");
  }

  int64_t Balance(const std::string& user) {
    return Int("SELECT balance_cents FROM accounts WHERE user_id = ?", {user});
  }

  BalanceChange Change(const std::string& user, int64_t delta, int64_t floor = 0) {
    auto r = ChangeBalance(*tx_, kAccounts, user, delta, floor);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : BalanceChange::kNotFound;
  }
};

TEST_F(ChangeBalanceTest, DeductsWhenTheMoneyIsThere) {
  EXPECT_EQ(Change("u1", -199), BalanceChange::kApplied);
  EXPECT_EQ(Balance("u1"), 801);
  EXPECT_EQ(Change("u1", -801), BalanceChange::kApplied) << "down to exactly zero is allowed";
  EXPECT_EQ(Balance("u1"), 0);
}

TEST_F(ChangeBalanceTest, InsufficientBalanceChangesNothingAndSaysSo) {
  EXPECT_EQ(Change("u1", -1001), BalanceChange::kInsufficient);
  EXPECT_EQ(Balance("u1"), 1000);
  EXPECT_EQ(Change("u2", -1), BalanceChange::kInsufficient);
  EXPECT_EQ(Balance("u2"), 0);
}

TEST_F(ChangeBalanceTest, CreditsApplyAndAFloorAllowsAnOverdraft) {
  EXPECT_EQ(Change("u2", 50), BalanceChange::kApplied);
  EXPECT_EQ(Balance("u2"), 50);
  EXPECT_EQ(Change("u2", -500, -500), BalanceChange::kApplied);
  EXPECT_EQ(Balance("u2"), -450);
  EXPECT_EQ(Change("u2", -51, -500), BalanceChange::kInsufficient);
}

TEST_F(ChangeBalanceTest, MissingAccountIsNotFoundNotInsufficient) {
  EXPECT_EQ(Change("nobody", -1), BalanceChange::kNotFound);
  EXPECT_EQ(Change("nobody", 1), BalanceChange::kNotFound);
}

TEST_F(ChangeBalanceTest, AZeroChangeIsACallerError) {
  auto r = ChangeBalance(*tx_, kAccounts, std::string("u1"), 0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
}

TEST_F(ChangeBalanceTest, RefusesNamesThatAreNotIdentifiers) {
  auto r = ChangeBalance(*tx_, {"accounts", "user_id", "balance_cents = 0 --"}, std::string("u1"), -1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(Balance("u1"), 1000);
}

}  // namespace
}  // namespace idem
