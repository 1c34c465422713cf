#include "store/mysql/my_conn.h"

#include <algorithm>

#include "store/mysql/my_status.h"
#include "store/mysql/my_values.h"

namespace idem::mysql {
namespace {

// Statements beyond this many distinct texts run prepared but uncached, so
// code that varies its SQL text cannot grow the server's statement cache
// without bound.
constexpr size_t kMaxPreparedStatements = 1000;

std::string Abbreviated(std::string_view sql) {
  constexpr size_t kMax = 160;
  return sql.size() <= kMax ? std::string(sql) : std::string(sql.substr(0, kMax)) + "…";
}

// What every session starts with. READ COMMITTED: under REPEATABLE READ the
// claims of absent keys take gap locks that deadlock concurrent batches.
// Strict mode: a value that does not fit is an error, never a warning and a
// silently changed row.
constexpr const char* kSessionSetup =
    "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED; "
    "SET SESSION sql_mode = 'STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ZERO_DATE,NO_ZERO_IN_DATE,"
    "NO_ENGINE_SUBSTITUTION'";

struct ResultFree {
  void operator()(MYSQL_RES* r) const { mysql_free_result(r); }
};
using ResultPtr = std::unique_ptr<MYSQL_RES, ResultFree>;

}  // namespace

Result<std::unique_ptr<Conn>> Conn::Open(const ConnectParams& params, const MysqlStoreOptions& options, Env* env) {
  std::unique_ptr<Conn> conn(new Conn(params, options, env));
  Status s = conn->Connect();
  if (!s.ok()) {
    if (s.code() == Status::Code::kUnavailable)
      return Status::Unavailable("cannot connect to MySQL (" + conn->Describe() + "): " + s.message() +
                                 " (check that the server runs and that the URL's host, port, user and "
                                 "database are right)");
    return s;
  }
  return conn;
}

Conn::~Conn() {
  CloseStatements();
  if (mysql_) mysql_close(mysql_);
}

std::string Conn::Describe() const {
  return params_.host + ":" + std::to_string(params_.port) + "/" + params_.database + " as " + params_.user;
}

Status Conn::Connect() {
  CloseStatements();
  if (mysql_) mysql_close(mysql_);
  healthy_ = false;
  open_tx_ = 0;  // a new session has no transaction
  mysql_ = mysql_init(nullptr);
  if (!mysql_) return Status::Unavailable("the MySQL client library is out of memory");
  const unsigned timeout = static_cast<unsigned>(
      std::max(params_.connect_timeout_s > 0 ? params_.connect_timeout_s : options_.connect_timeout_s, 1));
  my_bool reconnect = 0;
  mysql_options(mysql_, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
  mysql_options(mysql_, MYSQL_OPT_RECONNECT, &reconnect);
  mysql_options(mysql_, MYSQL_SET_CHARSET_NAME, "utf8mb4");
  // FOUND_ROWS: an UPDATE reports the rows it matched, as on the other stores,
  // not only those whose values changed. MULTI_STATEMENTS: for DDL scripts.
  if (!mysql_real_connect(mysql_, params_.host.c_str(), params_.user.c_str(), params_.password.c_str(),
                          params_.database.c_str(), params_.port, nullptr,
                          CLIENT_FOUND_ROWS | CLIENT_MULTI_STATEMENTS)) {
    return StatusFromMysql(mysql_errno(mysql_), mysql_sqlstate(mysql_), mysql_error(mysql_), "connecting");
  }
  healthy_ = true;
  return Command(kSessionSetup);
}

void Conn::CloseStatements() {
  for (auto& [sql, stmt] : statements_) mysql_stmt_close(stmt);
  statements_.clear();
}

Status Conn::Reconnect() {
  int64_t pause_ms = options_.reconnect_backoff_ms;
  const int attempts = std::max(options_.reconnect_attempts, 1);
  Status last;
  for (int attempt = 1;; ++attempt) {
    last = Connect();
    if (last.ok()) return last;
    if (attempt >= attempts) break;
    env_->SleepMs(pause_ms);
    pause_ms *= 2;
  }
  return Status::Unavailable("cannot reach MySQL (" + Describe() + ") after " + std::to_string(attempts) +
                             " reconnect attempts: " + last.message() + "; retry later");
}

Status Conn::Fail(unsigned number, const char* sqlstate, const char* message, std::string_view sql) {
  if (IsConnectionLost(number)) healthy_ = false;
  return StatusFromMysql(number, sqlstate ? sqlstate : "", message ? message : "",
                         "MySQL statement failed [" + Abbreviated(sql) + "]");
}

Result<Outcome> Conn::Run(std::string_view sql, const std::vector<Value>& params) {
  if (!healthy_) return Status::Unavailable("the connection to MySQL (" + Describe() + ") is lost; begin a new "
                                            "transaction to re-open it");
  std::string key(sql);
  MYSQL_STMT* stmt = nullptr;
  bool cached = false;
  if (auto it = statements_.find(key); it != statements_.end()) {
    stmt = it->second;
    cached = true;
  } else {
    stmt = mysql_stmt_init(mysql_);
    if (!stmt) return Fail(mysql_errno(mysql_), mysql_sqlstate(mysql_), mysql_error(mysql_), sql);
    my_bool update_max_length = 1;
    mysql_stmt_attr_set(stmt, STMT_ATTR_UPDATE_MAX_LENGTH, &update_max_length);
    if (mysql_stmt_prepare(stmt, key.data(), key.size()) != 0) {
      Status s = Fail(mysql_stmt_errno(stmt), mysql_stmt_sqlstate(stmt), mysql_stmt_error(stmt), sql);
      mysql_stmt_close(stmt);
      return s;
    }
    if (statements_.size() < kMaxPreparedStatements) {
      statements_.emplace(key, stmt);
      cached = true;
    }
  }
  // An uncached statement is closed when this call ends.
  std::unique_ptr<MYSQL_STMT, my_bool (*)(MYSQL_STMT*)> owned(cached ? nullptr : stmt, &mysql_stmt_close);

  if (mysql_stmt_param_count(stmt) != params.size())
    return Status::InvalidArgument("the statement has " + std::to_string(mysql_stmt_param_count(stmt)) +
                                   " placeholders but " + std::to_string(params.size()) + " values were bound [" +
                                   Abbreviated(sql) + "]");
  ParamBinds binds(params);
  if (!params.empty() && mysql_stmt_bind_param(stmt, binds.data()) != 0)
    return Fail(mysql_stmt_errno(stmt), mysql_stmt_sqlstate(stmt), mysql_stmt_error(stmt), sql);
  if (mysql_stmt_execute(stmt) != 0)
    return Fail(mysql_stmt_errno(stmt), mysql_stmt_sqlstate(stmt), mysql_stmt_error(stmt), sql);

  Outcome out;
  ResultPtr metadata(mysql_stmt_result_metadata(stmt));
  if (metadata) {
    if (mysql_stmt_store_result(stmt) != 0)
      return Fail(mysql_stmt_errno(stmt), mysql_stmt_sqlstate(stmt), mysql_stmt_error(stmt), sql);
    auto rows = FetchRows(stmt, metadata.get());
    mysql_stmt_free_result(stmt);
    if (!rows.ok()) return Fail(mysql_stmt_errno(stmt), mysql_stmt_sqlstate(stmt), mysql_stmt_error(stmt), sql);
    out.rows = std::move(*rows);
  }
  const my_ulonglong affected = mysql_stmt_affected_rows(stmt);
  out.affected = affected == static_cast<my_ulonglong>(-1) ? 0 : static_cast<int64_t>(affected);
  out.warnings = mysql_warning_count(mysql_);
  // A CALL returns a status result after its result sets; drain them.
  while (mysql_stmt_more_results(stmt) && mysql_stmt_next_result(stmt) == 0) mysql_stmt_free_result(stmt);
  return out;
}

Status Conn::Command(std::string_view sql) {
  if (!healthy_) return Status::Unavailable("the connection to MySQL (" + Describe() + ") is lost; begin a new "
                                            "transaction to re-open it");
  if (mysql_real_query(mysql_, sql.data(), sql.size()) != 0)
    return Fail(mysql_errno(mysql_), mysql_sqlstate(mysql_), mysql_error(mysql_), sql);
  // A script returns one result per statement; the first failing one stops it.
  for (;;) {
    ResultPtr res(mysql_store_result(mysql_));
    if (!res && mysql_field_count(mysql_) != 0)
      return Fail(mysql_errno(mysql_), mysql_sqlstate(mysql_), mysql_error(mysql_), sql);
    const int next = mysql_next_result(mysql_);
    if (next == -1) return Status::OK();
    if (next > 0) return Fail(mysql_errno(mysql_), mysql_sqlstate(mysql_), mysql_error(mysql_), sql);
  }
}

std::string Conn::Warnings() {
  if (!healthy_ || mysql_real_query(mysql_, "SHOW WARNINGS", 13) != 0) return "(warnings unavailable)";
  ResultPtr res(mysql_store_result(mysql_));
  std::string out;
  while (MYSQL_ROW row = res ? mysql_fetch_row(res.get()) : nullptr) {
    if (!out.empty()) out += "; ";
    out += std::string(row[0] ? row[0] : "") + " " + (row[1] ? row[1] : "") + ": " + (row[2] ? row[2] : "");
  }
  return out;
}

}  // namespace idem::mysql
