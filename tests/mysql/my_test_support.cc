#include "mysql/my_test_support.h"

#include <gtest/gtest.h>
#include <mysql.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <optional>

#include <nlohmann/json.hpp>

#include "idem/mysql_store.h"
#include "testing/consumer_group.h"
#include "store/mysql/my_url.h"

namespace idem::testing {

std::string MysqlTestUrl() {
  const char* url = std::getenv("IDEM_TEST_MYSQL_URL");
  return url ? url : "";
}

namespace {

MYSQL* Connect(const std::string& database) {
  auto p = mysql::ParseMysqlUrl(MysqlTestUrl());
  if (!p.ok()) {
    ADD_FAILURE() << p.status().ToString();
    return nullptr;
  }
  MYSQL* m = mysql_init(nullptr);
  if (!mysql_real_connect(m, p->host.c_str(), p->user.c_str(), p->password.c_str(),
                          database.empty() ? nullptr : database.c_str(), p->port, nullptr,
                          CLIENT_MULTI_STATEMENTS)) {
    ADD_FAILURE() << "admin connection failed: " << mysql_error(m);
    mysql_close(m);
    return nullptr;
  }
  return m;
}

// Runs `sql` on `m`; the text of value `column` of the first row of the first
// result, or nullopt on failure.
std::optional<std::string> Run(MYSQL* m, const std::string& sql, unsigned column = 0) {
  if (mysql_real_query(m, sql.data(), sql.size()) != 0) {
    ADD_FAILURE() << "[" << sql << "] failed: " << mysql_error(m);
    return std::nullopt;
  }
  std::string first;
  bool have = false;
  do {
    MYSQL_RES* res = mysql_store_result(m);
    if (res) {
      MYSQL_ROW row = mysql_fetch_row(res);
      if (!have && row && mysql_num_fields(res) > column && row[column]) first = row[column];
      have = true;
      mysql_free_result(res);
    }
  } while (mysql_next_result(m) == 0);
  if (mysql_errno(m) != 0) {
    ADD_FAILURE() << "[" << sql << "] failed: " << mysql_error(m);
    return std::nullopt;
  }
  return first;
}

std::optional<std::string> Admin(const std::string& sql, const std::string& database) {
  MYSQL* m = Connect(database);
  if (!m) return std::nullopt;
  auto out = Run(m, sql);
  mysql_close(m);
  return out;
}

}  // namespace

bool RunAdminSql(const std::string& sql, const std::string& database) { return Admin(sql, database).has_value(); }

int64_t AdminInt(const std::string& sql, const std::string& database) {
  auto v = Admin(sql, database);
  return v && !v->empty() ? std::stoll(*v) : -1;
}

namespace {

// The session's block of SHOW ENGINE INNODB STATUS's transactions, or "".
std::string TransactionOfSession(int64_t id) {
  MYSQL* m = Connect("");
  if (!m) return "";
  const std::string status = Run(m, "SHOW ENGINE INNODB STATUS", 2).value_or("");
  mysql_close(m);
  const std::string mark = "MariaDB thread id " + std::to_string(id) + ",";
  size_t start = 0;
  while ((start = status.find("---TRANSACTION ", start)) != std::string::npos) {
    const size_t end = status.find("---TRANSACTION ", start + 1);
    std::string block = status.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (block.find(mark) != std::string::npos) return block;
    start = start + 1;
  }
  return "";
}

}  // namespace

bool SessionWaitsForRowLock(int64_t id) { return TransactionOfSession(id).find("LOCK WAIT") != std::string::npos; }

bool SessionWaitsForRowOf(int64_t id, std::string_view table) {
  const std::string block = TransactionOfSession(id);
  const size_t wait = block.find("FOR THIS LOCK TO BE GRANTED:");
  if (block.find("LOCK WAIT") == std::string::npos || wait == std::string::npos) return false;
  const size_t of = block.find(" of table `", wait);
  const size_t line_end = block.find('\n', wait + 30);
  return of != std::string::npos && of < line_end &&
         block.find("`.`" + std::string(table) + "` ", of) < line_end;
}

std::string DatabaseOf(const std::string& url) {
  auto p = mysql::ParseMysqlUrl(url);
  return p.ok() ? p->database : "";
}

std::string FreshDatabaseUrl() {
  static std::atomic<int> n{0};
  const std::string base = MysqlTestUrl();
  const std::string db = "idem_t_" + std::to_string(getpid()) + "_" + std::to_string(++n);
  // A leftover from an earlier run whose process had the same pid goes first.
  if (!RunAdminSql("DROP DATABASE IF EXISTS " + db + "; CREATE DATABASE " + db)) return "";
  const auto slash = base.find('/', base.find("://") + 3);
  const auto query = base.find('?');
  return base.substr(0, slash + 1) + db + (query == std::string::npos ? "" : base.substr(query));
}

AdminSession::AdminSession() : mysql_(Connect("")) {}
AdminSession::~AdminSession() {
  if (mysql_) mysql_close(static_cast<MYSQL*>(mysql_));
}
bool AdminSession::Run(const std::string& sql) {
  return mysql_ && testing::Run(static_cast<MYSQL*>(mysql_), sql).has_value();
}

int64_t SessionId(Store& store) {
  auto tx = store.Begin();
  EXPECT_TRUE(tx.ok()) << tx.status().ToString();
  if (!tx.ok()) return 0;
  auto rows = (*tx)->Query("SELECT CONNECTION_ID()", {});
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  return rows.ok() ? AsInt((*rows)[0][0]) : 0;
}

bool WaitUntilSessionRunsCommit(int64_t id, int64_t timeout_ms) {
  return WaitFor(
      [&] {
        return AdminInt("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + std::to_string(id) +
                        " AND INFO = 'COMMIT'") == 1;
      },
      timeout_ms);
}

std::string FreshDatabaseUrlOrSkip() {
  if (!MysqlTestUrl().empty()) return FreshDatabaseUrl();
  [] { GTEST_SKIP() << kNoMysql; }();
  return "";
}

std::unique_ptr<Store> OpenMyStoreOrFail(const std::string& url) {
  auto s = OpenMysqlStore(url, MysqlStoreOptions{}, Env::Default());
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

}  // namespace idem::testing
