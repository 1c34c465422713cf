// Shared by the guard tests: a private in-memory SQLite store with the test's
// tables, and one open transaction to run the guards in.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "idem/store.h"

namespace idem::guards {

class GuardTest : public ::testing::Test {
 protected:
  // Creates the tables (and rows) of `schema`, then begins `tx_`.
  void Open(const std::string& schema) {
    auto s = OpenSqliteStore(":memory:", {}, Env::Default());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
    ASSERT_TRUE(store_->ExecScript(schema).ok());
    Begin();
  }
  void Begin() {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    tx_ = std::move(*tx);
  }
  // The first column of the first row, read inside `tx_`; -1 when there is none.
  int64_t Int(const std::string& sql, const std::vector<Value>& params = {}) {
    auto rows = tx_->Query(sql, params);
    EXPECT_TRUE(rows.ok()) << sql << ": " << rows.status().ToString();
    return rows.ok() && !rows->empty() ? AsInt((*rows)[0][0]) : -1;
  }
  std::string Text(const std::string& sql, const std::vector<Value>& params = {}) {
    auto rows = tx_->Query(sql, params);
    EXPECT_TRUE(rows.ok()) << sql << ": " << rows.status().ToString();
    return rows.ok() && !rows->empty() ? AsText((*rows)[0][0]) : "";
  }

  std::unique_ptr<Store> store_;
  std::unique_ptr<StoreTx> tx_;
};

}  // namespace idem::guards
