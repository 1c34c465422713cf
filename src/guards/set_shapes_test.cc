// The set-based guards over every set size from 1 to 150: each row is written,
// moved and charged exactly once, and the statements come in a few shapes
// rather than one per size (each shape is a statement the store keeps
// prepared for the connection's life). On a real SQLite store, and on
// MariaDB (tests/mysql).
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "guards/change_balance_rows.h"
#include "guards/guard_test_fixture.h"
#include "guards/insert_once_rows.h"
#include "idem/guards.h"
#include "store/set_shape.h"

namespace idem::guards {
namespace {

TEST(SetShape, FewSizesAndAtMostAnEighthOfPadding) {
  std::set<size_t> up_to_128;
  for (size_t n = 1; n <= 20000; ++n) {
    const size_t up = SetShapeAtLeast(n), down = SetShapeAtMost(n);
    ASSERT_GE(up, n);
    ASSERT_LE(up - n, n / 8) << n;
    ASSERT_LE(down, n);
    ASSERT_GE(down, 1u);
    ASSERT_LE(n - down, n / 8) << n;
    ASSERT_EQ(SetShapeAtLeast(up), up) << "a shape is its own shape: " << n;
    ASSERT_EQ(SetShapeAtMost(down), down) << n;
    if (n <= 128) up_to_128.insert(up);
  }
  EXPECT_EQ(up_to_128.size(), 16u + 8 + 8 + 8);

  std::vector<int> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
  PadToSetShape(v);
  EXPECT_EQ(v, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 17}));
}

// Runs the guards' statements on the store's transaction and keeps their texts.
class RecordingTx : public SqlTx {
 public:
  explicit RecordingTx(SqlTx& tx) : tx_(tx) {}
  Result<int64_t> Exec(std::string_view sql, const std::vector<Value>& params) override {
    texts.emplace(sql);
    return tx_.Exec(sql, params);
  }
  Result<Rows> Query(std::string_view sql, const std::vector<Value>& params) override {
    texts.emplace(sql);
    return tx_.Query(sql, params);
  }
  Status Savepoint(std::string_view name) override { return tx_.Savepoint(name); }
  Status RollbackTo(std::string_view name) override { return tx_.RollbackTo(name); }
  Status Release(std::string_view name) override { return tx_.Release(name); }
  const SqlDialect& Dialect() const override { return tx_.Dialect(); }

  std::set<std::string, std::less<>> texts;

 private:
  SqlTx& tx_;
};

class SetShapesTest : public GuardTest {
 protected:
  void SetUp() override {
    Open("CREATE TABLE accounts (user_id VARCHAR(64) PRIMARY KEY, balance_cents BIGINT NOT NULL,"
         " status VARCHAR(16) NOT NULL, version BIGINT NOT NULL DEFAULT 0, note VARCHAR(64));"
         "CREATE TABLE loose (id VARCHAR(64) NOT NULL);");
  }
};

TEST_F(SetShapesTest, EverySetSizeAppliesEachRowOnceInAFewStatementShapes) {
  auto sm = StateMachine::Create({"accounts", "user_id", "status", "version", {{"NEW", "OPEN"}}});
  ASSERT_TRUE(sm.ok()) << sm.status().ToString();
  RecordingTx inserts(*tx_), balances(*tx_), moves(*tx_);
  int64_t total = 0;
  for (int size = 1; size <= 150; ++size) {
    std::vector<std::vector<Column>> rows;
    std::vector<BalanceDelta> deltas;
    std::vector<StateMachine::RowMove> opened;
    for (int i = 0; i < size; ++i) {
      const std::string user = "s" + std::to_string(size) + "-" + std::to_string(i);
      rows.push_back({{"user_id", user}, {"balance_cents", int64_t{100}}, {"status", "NEW"}});
      deltas.push_back({user, -int64_t{i % 7 + 1}});
      opened.push_back({user, {{"note", "n" + std::to_string(i)}}});
      total += 100 - (i % 7 + 1);
    }
    auto n = InsertOnceRows(inserts, "accounts", rows);
    ASSERT_TRUE(n.ok()) << size << ": " << n.status().ToString();
    ASSERT_EQ(*n, size) << "rows inserted for a set of " << size;
    auto c = ChangeBalances(balances, {"accounts", "user_id", "balance_cents"}, deltas);
    ASSERT_TRUE(c.ok()) << size << ": " << c.status().ToString();
    ASSERT_EQ(c->changed, size) << "balances changed for a set of " << size;
    auto m = sm->MoveRows(moves, opened, "OPEN");
    ASSERT_TRUE(m.ok()) << size << ": " << m.status().ToString();
    ASSERT_EQ(*m, size) << "rows moved for a set of " << size;
  }
  EXPECT_EQ(Int("SELECT COUNT(*) FROM accounts"), 150 * 151 / 2);
  EXPECT_EQ(Int("SELECT SUM(balance_cents) FROM accounts"), total);
  EXPECT_EQ(Int("SELECT COUNT(*) FROM accounts WHERE status = 'OPEN' AND version = 1 AND note IS NOT NULL"),
            150 * 151 / 2)
      << "every row moved once, with its own note";
  for (const char* user : {"s1-0", "s17-16", "s17-15", "s150-0", "s150-149"})
    EXPECT_EQ(Text("SELECT note FROM accounts WHERE user_id = ?", {std::string(user)}),
              "n" + std::string(std::strchr(user, '-') + 1))
        << "each row got the note of its own key, the last one of a padded set too: " << user;
  // Sizes 1-150 are 42 shapes; MySQL's INSERT is cut rather than padded, so a
  // set is up to two statements there, of the same shapes.
  EXPECT_LE(inserts.texts.size(), 42u);
  EXPECT_LE(balances.texts.size(), 42u);
  EXPECT_LE(moves.texts.size(), 42u);
}

TEST_F(SetShapesTest, ATableThatMakesNothingUniqueIsNeverWrittenTwice) {
  std::vector<std::vector<Column>> rows;
  for (int i = 0; i < 17; ++i) rows.push_back({{"id", "r" + std::to_string(i)}});
  auto n = InsertOnceRows(*tx_, "loose", rows);
  if (!tx_->Dialect().InsertSkipsRepeatedRows()) {
    // Cut, not padded: every row once.
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_EQ(*n, 17);
    EXPECT_EQ(Int("SELECT COUNT(*) FROM loose"), 17);
  } else {
    // The padding copy went in: the caller is told, and rolls the set back.
    ASSERT_FALSE(n.ok());
    EXPECT_NE(n.status().message().find("unique index"), std::string::npos) << n.status().ToString();
  }
}

}  // namespace
}  // namespace idem::guards
