// StateMachine: the payments order lifecycle over a real SQLite store.
#include <gtest/gtest.h>

#include "guards/guard_test_fixture.h"
#include "idem/guards.h"

namespace idem {
namespace {

using O = TransitionResult::Outcome;

StateMachineSpec OrderSpec() {
  return {"orders", "order_no", "status", "version",
          {{"WAIT_PAY", "PAID"}, {"PAID", "SHIPPED"}, {"SHIPPED", "FINISHED"}, {"PAID", "REFUNDED"}}};
}

class StateMachineTest : public guards::GuardTest {
 protected:
  void SetUp() override {
    Open("CREATE TABLE orders (order_no VARCHAR(64) PRIMARY KEY, status VARCHAR(16) NOT NULL, "
         "version BIGINT NOT NULL DEFAULT 0, payment_id VARCHAR(64));"
         "INSERT INTO orders (order_no, status) VALUES ('O1', 'WAIT_PAY');");
    auto sm = StateMachine::Create(OrderSpec());
    ASSERT_TRUE(sm.ok()) << sm.status().ToString();
    sm_ = std::make_unique<StateMachine>(std::move(*sm));
  }

  TransitionResult Move(const std::string& order, const std::string& target, std::vector<Column> also = {}) {
    auto r = sm_->Move(*tx_, order, target, also);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : TransitionResult{O::kNotFound, {}};
  }

  std::string Field(const std::string& column) {
    return Text("SELECT " + column + " FROM orders WHERE order_no = 'O1'");
  }

  std::unique_ptr<StateMachine> sm_;
};

TEST_F(StateMachineTest, LegalTransitionMovesBumpsVersionAndSetsColumns) {
  TransitionResult r = Move("O1", "PAID", {{"payment_id", "P1"}});
  EXPECT_TRUE(r.applied());
  EXPECT_EQ(Field("status"), "PAID");
  EXPECT_EQ(Field("version"), "1");
  EXPECT_EQ(Field("payment_id"), "P1");
}

TEST_F(StateMachineTest, TheSameEventAgainIsAlreadyInTarget) {
  ASSERT_TRUE(Move("O1", "PAID").applied());
  TransitionResult r = Move("O1", "PAID", {{"payment_id", "P2"}});
  EXPECT_EQ(r.outcome, O::kAlreadyInTarget);
  EXPECT_EQ(Field("version"), "1") << "a duplicate changes nothing";
  EXPECT_EQ(Field("payment_id"), "") << "also_set columns are written only with the transition";
}

TEST_F(StateMachineTest, ALatePaidAfterShippedIsStaleAndNeverRegresses) {
  ASSERT_TRUE(Move("O1", "PAID").applied());
  ASSERT_TRUE(Move("O1", "SHIPPED").applied());
  TransitionResult r = Move("O1", "PAID");
  EXPECT_EQ(r.outcome, O::kStale);
  EXPECT_EQ(r.current, "SHIPPED");
  EXPECT_EQ(r.Describe("PAID"), "stale: state SHIPPED is already past PAID");
  EXPECT_EQ(Field("status"), "SHIPPED");
  ASSERT_TRUE(Move("O1", "FINISHED").applied());
  EXPECT_EQ(Move("O1", "SHIPPED").outcome, O::kStale);
  EXPECT_EQ(Field("status"), "FINISHED");
}

TEST_F(StateMachineTest, AnEarlyEventIsTooEarlyNotIllegal) {
  TransitionResult r = Move("O1", "SHIPPED");
  EXPECT_EQ(r.outcome, O::kTooEarly);
  EXPECT_EQ(r.current, "WAIT_PAY");
  EXPECT_EQ(Move("O1", "FINISHED").outcome, O::kTooEarly);
  EXPECT_EQ(Field("status"), "WAIT_PAY");
}

TEST_F(StateMachineTest, AnUnreachableTargetIsIllegal) {
  ASSERT_TRUE(Move("O1", "PAID").applied());
  ASSERT_TRUE(Move("O1", "REFUNDED").applied());
  TransitionResult r = Move("O1", "SHIPPED");
  EXPECT_EQ(r.outcome, O::kIllegal);
  EXPECT_EQ(r.Describe("SHIPPED"), "illegal: REFUNDED cannot become SHIPPED");
  EXPECT_EQ(Field("status"), "REFUNDED");
  // A late PAID after a refund is stale: the order did pass through PAID.
  EXPECT_EQ(Move("O1", "PAID").outcome, O::kStale);
}

TEST_F(StateMachineTest, MissingRowAndUnknownTarget) {
  EXPECT_EQ(Move("nope", "PAID").outcome, O::kNotFound);
  auto r = sm_->Move(*tx_, std::string("O1"), "WAIT_PAY");
  ASSERT_FALSE(r.ok()) << "no transition leads to the initial state";
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_FALSE(sm_->Move(*tx_, std::string("O1"), "PAID", {{"status", "X"}}).ok());
}

TEST_F(StateMachineTest, ClassifyCoversEveryPair) {
  EXPECT_EQ(sm_->Classify("WAIT_PAY", "PAID"), O::kApplied);
  EXPECT_EQ(sm_->Classify("PAID", "PAID"), O::kAlreadyInTarget);
  EXPECT_EQ(sm_->Classify("FINISHED", "PAID"), O::kStale);
  EXPECT_EQ(sm_->Classify("WAIT_PAY", "FINISHED"), O::kTooEarly);
  EXPECT_EQ(sm_->Classify("SHIPPED", "REFUNDED"), O::kIllegal);
  EXPECT_EQ(sm_->Classify("FINISHED", "REFUNDED"), O::kIllegal);
  EXPECT_EQ(sm_->Classify("UNKNOWN", "PAID"), O::kIllegal);
  EXPECT_TRUE(sm_->Reaches("WAIT_PAY", "FINISHED"));
  EXPECT_FALSE(sm_->Reaches("REFUNDED", "PAID"));
  EXPECT_TRUE(sm_->IsLegal("PAID", "REFUNDED"));
  EXPECT_FALSE(sm_->IsLegal("WAIT_PAY", "SHIPPED"));
}

TEST(StateMachineCreate, RejectsCyclesSelfLoopsBadNamesAndNothing) {
  StateMachineSpec cyc = OrderSpec();
  cyc.transitions.push_back({"FINISHED", "PAID"});
  auto c = StateMachine::Create(cyc);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("cycle"), std::string::npos) << c.status().message();

  StateMachineSpec self = OrderSpec();
  self.transitions.push_back({"PAID", "PAID"});
  EXPECT_FALSE(StateMachine::Create(self).ok());

  StateMachineSpec bad = OrderSpec();
  bad.table = "orders o";
  EXPECT_FALSE(StateMachine::Create(bad).ok());

  StateMachineSpec empty = OrderSpec();
  empty.transitions.clear();
  EXPECT_FALSE(StateMachine::Create(empty).ok());
}

TEST_F(StateMachineTest, MoveRowsMovesEveryRowInAPredecessorWithItsOwnColumns) {
  ASSERT_TRUE(tx_->Exec("INSERT INTO orders (order_no, status) VALUES ('O2', 'WAIT_PAY'), ('O3', 'SHIPPED')", {}).ok());
  auto n = sm_->MoveRows(*tx_, {{"O1", {{"payment_id", "P1"}}}, {"O2", {{"payment_id", "P2"}}}}, "PAID");
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 2);
  EXPECT_EQ(Int("SELECT COUNT(*) FROM orders WHERE status = 'PAID' AND version = 1 AND "
                "((order_no = 'O1' AND payment_id = 'P1') OR (order_no = 'O2' AND payment_id = 'P2'))"),
            2);

  // O3 is past PAID and O9 does not exist: neither moves, and the count says so.
  n = sm_->MoveRows(*tx_, {{"O3", {{"payment_id", "P3"}}}, {"O9", {{"payment_id", "P9"}}}}, "PAID");
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 0);
  EXPECT_EQ(Text("SELECT status FROM orders WHERE order_no = 'O3'"), "SHIPPED");
  EXPECT_EQ(Int("SELECT COUNT(*) FROM orders WHERE payment_id = 'P3'"), 0);
}

TEST_F(StateMachineTest, MoveRowsRefusesWhatMoveRefuses) {
  EXPECT_FALSE(sm_->MoveRows(*tx_, {{"O1", {}}}, "WAIT_PAY").ok()) << "no transition leads there";
  EXPECT_FALSE(sm_->MoveRows(*tx_, {{"O1", {{"status", "X"}}}}, "PAID").ok());
  EXPECT_FALSE(sm_->MoveRows(*tx_, {{"O1", {{"payment_id", "P1"}}}, {"O2", {}}}, "PAID").ok())
      << "every row sets the same columns";
  EXPECT_EQ(Field("status"), "WAIT_PAY");
}

}  // namespace
}  // namespace idem
