// Shared by the guard tests: a private in-memory SQLite store with the test's
// tables, and one open transaction to run the guards in. Built with
// IDEM_GUARD_TESTS_ON_MYSQL (tests/mysql), the same tests run on a fresh
// database of the MariaDB test server instead.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "idem/store.h"
#ifdef IDEM_GUARD_TESTS_ON_MYSQL
#include "mysql/my_test_support.h"
#endif

namespace idem::guards {

class GuardTest : public ::testing::Test {
 protected:
  // Creates the tables (and rows) of `schema`, then begins `tx_`.
  void Open(const std::string& schema) {
#ifdef IDEM_GUARD_TESTS_ON_MYSQL
    if (testing::MysqlTestUrl().empty()) GTEST_SKIP() << testing::kNoMysql;
    store_ = testing::OpenMyStoreOrFail(testing::FreshDatabaseUrl());
    ASSERT_NE(store_, nullptr);
#else
    auto s = OpenSqliteStore(":memory:", {}, Env::Default());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
#endif
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
