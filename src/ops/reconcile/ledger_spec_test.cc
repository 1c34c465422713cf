#include "ops/reconcile/ledger_spec.h"

#include <gtest/gtest.h>

#include "ops/reconcile/ledger_sql.h"
#include "ops/reconcile/ledger_toml.h"
#include "ops/reconcile/test_specs.h"
#include "store/dialects.h"

namespace idem::reconcile {
namespace {

using testing::MinimalSpec;

std::string Problem(const LedgerSpec& s) {
  Status v = Validate(s);
  return v.ok() ? "" : v.message();
}

TEST(LedgerSpecTest, NamesMustBePlainIdentifiers) {
  EXPECT_EQ(Problem(MinimalSpec()), "");
  for (const std::string& bad :
       std::vector<std::string>{"flows; DROP TABLE flows", "flows\"", "1flows", "a.b", "", std::string(64, 'a')}) {
    LedgerSpec s = MinimalSpec();
    s.table = bad;
    EXPECT_NE(Problem(s), "") << bad;
    s = MinimalSpec();
    s.key_columns = {"biz_no", bad};
    EXPECT_NE(Problem(s), "") << bad;
    s = MinimalSpec();
    s.where = {{bad, "x"}};
    EXPECT_NE(Problem(s), "") << bad;
  }
  LedgerSpec s = MinimalSpec();
  s.table = "flows; DROP TABLE flows";
  EXPECT_NE(Problem(s).find("'flows; DROP TABLE flows' is not a plain SQL identifier"), std::string::npos)
      << Problem(s);
}

TEST(LedgerSpecTest, MissingPartsSayWhichFlagOrKeyGivesThem) {
  LedgerSpec s = MinimalSpec();
  s.amount_column.clear();
  EXPECT_NE(Problem(s).find("--amount-column"), std::string::npos) << Problem(s);
  s = MinimalSpec();
  s.balance_table = "accounts";
  EXPECT_NE(Problem(s).find("all three"), std::string::npos) << Problem(s);
}

// A reversal gets a new first key, amount and time: a filter on those would
// hide it from the next run, which would then reverse the copy again.
TEST(LedgerSpecTest, FiltersThatWouldHideReversalsAreRefused) {
  for (const char* column : {"biz_no", "amount_cents"}) {
    LedgerSpec s = MinimalSpec();
    s.where = {{column, "x"}};
    EXPECT_NE(Problem(s).find("would hide the reversals"), std::string::npos) << column;
  }
  LedgerSpec s = MinimalSpec();
  s.copy_columns = {"amount_cents"};
  EXPECT_NE(Problem(s), "");
}

TEST(LedgerSqlTest, NamesAreQuotedAndValuesBound) {
  LedgerSpec s = MinimalSpec();
  s.key_columns = {"biz_no", "type"};
  s.where = {{"type", "PAY_DEDUCT"}, {"channel", "card"}};
  s.balance_table = "accounts";
  s.balance_key_column = "user";
  s.balance_column = "balance";
  const LedgerSql pg(s, PostgresDialect());
  EXPECT_EQ(pg.select_entries,
            "SELECT \"biz_no\", \"type\", \"amount_cents\", \"user_id\" FROM \"flows\" WHERE \"type\" = ? AND "
            "\"channel\" = ? ORDER BY \"biz_no\", \"type\"");
  // The filtered column that is not part of the key is copied, so the reversal stays inside the filter.
  EXPECT_EQ(pg.insert_reversal,
            "INSERT INTO \"flows\" (\"biz_no\", \"type\", \"amount_cents\", \"user_id\", \"channel\") VALUES (?, ?, "
            "?, ?, ?)");
  EXPECT_EQ(pg.lock_balance, "SELECT \"balance\" FROM \"accounts\" WHERE \"user\" = ? FOR UPDATE");
  EXPECT_EQ(LedgerSql(s, SqliteDialect()).lock_balance, "SELECT \"balance\" FROM \"accounts\" WHERE \"user\" = ?");
  EXPECT_EQ(pg.update_balance, "UPDATE \"accounts\" SET \"balance\" = \"balance\" + ? WHERE \"user\" = ?");
}

TEST(LedgerTomlTest, ReadsTheReconcileSection) {
  auto file = ParseLedgerToml(R"(
[service]
other = 1
[reconcile]
store = "sqlite:pay.db"
[reconcile.ledger]
table = "pay_account_flows"
key_columns = ["biz_no", "type"]
amount_column = "amount_cents"
account_column = "user_id"
time_column = "created_at_ms"
where = { type = "PAY_DEDUCT", shard = 3 }
bank_sign = "opposite"
amount_decimals = 2
[reconcile.balance]
table = "pay_accounts"
key_column = "user_id"
column = "balance_cents"
)",
                              "pay.toml");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->store, "sqlite:pay.db");
  const LedgerSpec& s = file->spec;
  EXPECT_EQ(s.table, "pay_account_flows");
  EXPECT_EQ(s.key_columns, (std::vector<std::string>{"biz_no", "type"}));
  // TOML tables have no order: the filters come back sorted by column.
  EXPECT_EQ(s.where, (std::vector<std::pair<std::string, std::string>>{{"shard", "3"}, {"type", "PAY_DEDUCT"}}));
  EXPECT_EQ(s.bank_sign, BankSign::kOpposite);
  EXPECT_EQ(s.balance_column, "balance_cents");
  EXPECT_TRUE(Validate(s).ok()) << Validate(s).message();
}

TEST(LedgerTomlTest, TyposAndWrongTypesNameTheFileAndLine) {
  auto typo = ParseLedgerToml("[reconcile.ledger]\ntable = \"t\"\nkey_colums = [\"a\"]\n", "pay.toml");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("pay.toml:3: unknown key 'key_colums'"), std::string::npos)
      << typo.status().message();
  auto type = ParseLedgerToml("[reconcile.ledger]\ntable = 3\n", "pay.toml");
  ASSERT_FALSE(type.ok());
  EXPECT_NE(type.status().message().find("pay.toml:2: reconcile.ledger.table must be a string"), std::string::npos)
      << type.status().message();
  EXPECT_FALSE(ParseLedgerToml("[other]\n", "pay.toml").ok());
  EXPECT_FALSE(ParseLedgerToml("[reconcile\n", "pay.toml").ok());
}

}  // namespace
}  // namespace idem::reconcile
