// InsertOnce over a real SQLite store: a ledger unique on (biz_no, type).
#include <gtest/gtest.h>

#include "guards/guard_test_fixture.h"
#include "idem/guards.h"

namespace idem {
namespace {

class InsertOnceTest : public guards::GuardTest {
 protected:
  void SetUp() override {
    Open("CREATE TABLE flows (biz_no VARCHAR(64) NOT NULL, type VARCHAR(16) NOT NULL, amount_cents BIGINT NOT NULL, "
         "CONSTRAINT uk_biz_no_type UNIQUE (biz_no, type));"
         "CREATE TABLE other (v BIGINT NOT NULL);");
  }

  Result<InsertOutcome> Flow(const std::string& biz_no, const std::string& type, int64_t amount) {
    return InsertOnce(*tx_, "flows", {{"biz_no", biz_no}, {"type", type}, {"amount_cents", amount}});
  }

  int64_t Count(const std::string& sql) { return Int(sql); }
};

TEST_F(InsertOnceTest, SecondInsertOfTheSameBizNoAndTypeIsAlreadyApplied) {
  auto first = Flow("P1", "PAY_DEDUCT", -199);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, InsertOutcome::kInserted);
  auto again = Flow("P1", "PAY_DEDUCT", -199);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, InsertOutcome::kAlreadyApplied);
  // Same business number, another action: a different row, not a duplicate.
  auto refund = Flow("P1", "REFUND", 199);
  ASSERT_TRUE(refund.ok());
  EXPECT_EQ(*refund, InsertOutcome::kInserted);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM flows"), 2);
  EXPECT_EQ(Count("SELECT SUM(amount_cents) FROM flows"), 0);
}

TEST_F(InsertOnceTest, ADuplicateKeepsEarlierWritesAndTheTransactionUsable) {
  ASSERT_TRUE(Flow("P1", "PAY_DEDUCT", -5).ok());
  ASSERT_TRUE(tx_->Exec("INSERT INTO other (v) VALUES (?)", {int64_t{7}}).ok());
  auto dup = Flow("P1", "PAY_DEDUCT", -5);
  ASSERT_TRUE(dup.ok());
  EXPECT_EQ(*dup, InsertOutcome::kAlreadyApplied);
  ASSERT_TRUE(tx_->Exec("INSERT INTO other (v) VALUES (?)", {int64_t{8}}).ok()) << "transaction must stay usable";
  ASSERT_TRUE(tx_->Commit().ok());
  Begin();
  EXPECT_EQ(Count("SELECT COUNT(*) FROM other"), 2);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM flows"), 1);
}

TEST_F(InsertOnceTest, OtherConstraintFailuresAreErrorsNotAlreadyApplied) {
  auto bad = InsertOnce(*tx_, "flows", {{"biz_no", "P1"}, {"type", nullptr}, {"amount_cents", int64_t{1}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_FALSE(bad.status().IsAlreadyExists());
  EXPECT_TRUE(Flow("P1", "PAY_DEDUCT", -1).ok()) << "transaction must stay usable after the failure";
}

TEST_F(InsertOnceTest, NestsInsideTheHandlersSavepoint) {
  // The pipeline runs each handler under its own savepoint; rolling that back
  // must also undo rows InsertOnce wrote.
  ASSERT_TRUE(tx_->Savepoint("idem_msg").ok());
  ASSERT_TRUE(Flow("P9", "PAY_DEDUCT", -1).ok());
  ASSERT_TRUE(tx_->RollbackTo("idem_msg").ok());
  ASSERT_TRUE(tx_->Release("idem_msg").ok());
  EXPECT_EQ(Count("SELECT COUNT(*) FROM flows"), 0);
}

TEST_F(InsertOnceTest, RefusesNamesThatAreNotIdentifiers) {
  auto r = InsertOnce(*tx_, "flows; DROP TABLE flows", {{"biz_no", "P1"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  auto c = InsertOnce(*tx_, "flows", {{"biz no", "P1"}});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("'biz no'"), std::string::npos) << c.status().message();
  EXPECT_FALSE(InsertOnce(*tx_, "flows", {}).ok());
}

}  // namespace
}  // namespace idem
