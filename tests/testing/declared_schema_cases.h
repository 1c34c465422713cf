// The declared schema check's cases, written once for every store: the same
// business tables (portable DDL), one configuration whose steps all fit them
// and one whose steps each get one thing wrong. The PostgreSQL and MariaDB
// suites run them on their servers; the SQLite ones run through `idem run`.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "idem/store.h"
#include "service/config.h"
#include "service/declared_schema_check.h"

namespace idem::testing {

inline void CreateDeclaredSchemaTables(Store& store) {
  for (const char* ddl : {
           "CREATE TABLE ledger (pay_id VARCHAR(64) NOT NULL UNIQUE, amount BIGINT NOT NULL)",
           "CREATE TABLE accounts (owner VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL, note VARCHAR(64))",
           "CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY, status VARCHAR(32) NOT NULL, version BIGINT NOT NULL, "
           "paid_ms BIGINT)",
       }) {
    Status s = store.ExecScript(ddl);
    ASSERT_TRUE(s.ok()) << ddl << ": " << s.ToString();
  }
}

// One step of each kind, every table and column as the tables have them.
inline constexpr const char* kFittingSteps = R"(
[broker]
url = "queue:q.db"
[store]
url = "sqlite:s.db"
[[state_machine]]
name = "order"
table = "orders"
key_column = "id"
state_column = "status"
version_column = "version"
transitions = [["NEW", "PAID"]]
[[consumer]]
group = "g"
  [[consumer.handler]]
  topic = "pay"
  key = ["pay_id"]
    [[consumer.handler.step]]
    insert_once = "ledger"
    columns = { pay_id = "pay_id", amount = "amount" }
    [[consumer.handler.step]]
    change_balance = "accounts"
    key_column = "owner"
    balance_column = "balance"
    key = "owner"
    subtract = "amount"
    [[consumer.handler.step]]
    transition = "order"
    key = "order_id"
    to = "PAID"
    also_set = { paid_ms = "$now_ms" }
    [[consumer.handler.step]]
    update_if_version = "orders"
    key_column = "id"
    version_column = "version"
    key = "order_id"
    expected_version = "version"
    set = { paid_ms = "$now_ms" }
    [[consumer.handler.step]]
    sql = "UPDATE accounts SET note = ? WHERE owner = ?"
    params = [{ text = "paid" }, "owner"]
    expect_rows = 1
)";

// Each step wrong in one way: a missing table, a missing column, a text
// balance, a number where the states go, a statement on a missing table.
inline constexpr const char* kMisfittingSteps = R"(
[broker]
url = "queue:q.db"
[store]
url = "sqlite:s.db"
[[state_machine]]
name = "order"
table = "orders"
key_column = "id"
state_column = "version"
transitions = [["NEW", "PAID"]]
[[consumer]]
group = "g"
  [[consumer.handler]]
  topic = "pay"
  key = ["pay_id"]
    [[consumer.handler.step]]
    insert_once = "ledgr"
    columns = { pay_id = "pay_id" }
    [[consumer.handler.step]]
    change_balance = "accounts"
    key_column = "owner"
    balance_column = "balanse"
    key = "owner"
    add = "amount"
    [[consumer.handler.step]]
    change_balance = "accounts"
    key_column = "owner"
    balance_column = "note"
    key = "owner"
    add = "amount"
    [[consumer.handler.step]]
    transition = "order"
    key = "order_id"
    to = "PAID"
    [[consumer.handler.step]]
    sql = "UPDATE acounts SET note = ? WHERE owner = ?"
    params = [{ text = "paid" }, "owner"]
)";

inline service::ServiceConfig ParsedOrFail(const char* text) {
  auto config = service::ParseConfig(text, "f.toml");
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return config.ok() ? *config : service::ServiceConfig{};
}

// REQUIRES: CreateDeclaredSchemaTables(store).
inline void ExpectDeclaredSchemaCases(Store& store) {
  Status fits = service::CheckDeclaredSchema(ParsedOrFail(kFittingSteps), store);
  EXPECT_TRUE(fits.ok()) << fits.ToString();

  Status misfits = service::CheckDeclaredSchema(ParsedOrFail(kMisfittingSteps), store);
  ASSERT_EQ(misfits.code(), Status::Code::kInvalidArgument) << misfits.ToString();
  const std::string& m = misfits.message();
  for (const char* says : {
           "f.toml:17:5: step 1 of topic \"pay\" (insert_once): table \"ledgr\" does not exist in the store",
           "f.toml:20:5: step 2 of topic \"pay\" (change_balance): table \"accounts\" has no column \"balanse\" "
           "(balance_column); its columns are owner, balance, note",
           "f.toml:26:5: step 3 of topic \"pay\" (change_balance): column \"note\" of table \"accounts\" "
           "(balance_column) is ",
           "f.toml:32:5: step 4 of topic \"pay\" (transition): column \"version\" of table \"orders\" (state_column "
           "of state machine \"order\" at f.toml:6:1) is ",
           "f.toml:36:5: step 5 of topic \"pay\" (sql): the statement does not compile against the store (",
       })
    EXPECT_NE(m.find(says), std::string::npos) << "missing: " << says << "\nin:\n" << m;

  // The check rolled its transaction back and wrote nothing.
  auto tx = store.Begin();
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  auto rows = (*tx)->Query("SELECT COUNT(*) FROM ledger", {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(AsInt(rows->at(0).at(0)), 0);
}

}  // namespace idem::testing
