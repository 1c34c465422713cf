#include "testing/test_util.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>

namespace idem::testing {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "idem-test-XXXXXX").string();
  char* p = mkdtemp(tmpl.data());
  if (!p) throw std::runtime_error("mkdtemp failed");
  path_ = p;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

// MySQL reserves `key`: its tables (and the MySQL tests' SQL) name the column k.
std::string EffectKeyColumn(const SqlDialect& dialect) { return dialect.Name() == "mysql" ? "k" : "key"; }

void CreateEffectTables(Store& store) {
  // One script for every store but the key column's name (MySQL reserves
  // `key`) and how an existing account is left alone.
  const bool mysql = store.Dialect().Name() == "mysql";
  Status s = store.ExecScript(
      "CREATE TABLE IF NOT EXISTS effects (" + EffectKeyColumn(store.Dialect()) + " " +
      (mysql ? "VARCHAR(600)" : "TEXT") + " NOT NULL, msg_id " + (mysql ? "VARCHAR(255)" : "TEXT") +
      " NOT NULL, amount BIGINT NOT NULL);"
      "CREATE TABLE IF NOT EXISTS accounts (owner VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL);" +
      (mysql ? "INSERT IGNORE INTO accounts (owner, balance) VALUES ('u1', 1000000), ('u2', 1000000);"
             : "INSERT INTO accounts (owner, balance) VALUES ('u1', 1000000), ('u2', 1000000) ON CONFLICT DO NOTHING;"));
  ASSERT_TRUE(s.ok()) << s.ToString();
}

HandlerSpec PayHandler(const std::string& topic) {
  HandlerSpec spec;
  spec.topic = topic;
  spec.key.fields = {"payment_id"};
  spec.fn = [](HandlerContext& ctx) -> HandlerResult {
    auto doc = nlohmann::json::parse(ctx.message.payload);
    const int64_t amount = doc.at("amount").get<int64_t>();
    const std::string owner = doc.value("user", "u1");
    auto ins = ctx.tx.Exec("INSERT INTO effects (" + EffectKeyColumn(ctx.tx.Dialect()) + ", msg_id, amount) VALUES (?, ?, ?)",
                           {ctx.idempotency_key, ctx.message.id, amount});
    if (!ins.ok()) return HandlerResult::Retryable(ins.status().ToString());
    // One UPDATE, not read-modify-write: concurrent consumers on PostgreSQL
    // (READ COMMITTED) would otherwise lose each other's debits.
    auto upd = ctx.tx.Exec("UPDATE accounts SET balance = balance - ? WHERE owner = ?", {amount, owner});
    if (!upd.ok()) return HandlerResult::Retryable(upd.status().ToString());
    if (*upd == 0) return HandlerResult::Permanent("no account " + owner);
    if (doc.value("fail", std::string()) == "permanent") return HandlerResult::Permanent("bad payment");
    if (doc.value("fail", std::string()) == "retryable") return HandlerResult::Retryable("bank timeout");
    if (doc.value("fail", std::string()) == "throw") throw std::runtime_error("boom after the deduction");
    return HandlerResult::Ok("charged " + std::to_string(amount));
  };
  return spec;
}

int64_t QueryInt(Store& store, const std::string& sql) {
  auto tx = store.Begin();
  EXPECT_TRUE(tx.ok()) << tx.status().ToString();
  if (!tx.ok()) return -1;
  auto rows = (*tx)->Query(sql, {});
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  (*tx)->Rollback();
  if (!rows.ok() || rows->empty()) return -1;
  return AsInt((*rows)[0][0]);
}

std::string DumpRows(Store& store, const std::string& sql) {
  auto tx = store.Begin();
  EXPECT_TRUE(tx.ok()) << tx.status().ToString();
  if (!tx.ok()) return {};
  auto rows = (*tx)->Query(sql, {});
  EXPECT_TRUE(rows.ok()) << sql << ": " << rows.status().ToString();
  (*tx)->Rollback();
  std::string out;
  for (const auto& row : rows.ok() ? *rows : Rows{}) {
    for (size_t i = 0; i < row.size(); ++i) out += (i ? "|" : "") + AsText(row[i]);
    out += "\n";
  }
  return out;
}

int64_t CountEffects(Store& store, const std::string& key_like) {
  auto tx = store.Begin();
  if (!tx.ok()) return -1;
  auto rows = (*tx)->Query("SELECT COUNT(*) FROM effects WHERE key LIKE ?", {key_like});
  (*tx)->Rollback();
  return rows.ok() ? AsInt((*rows)[0][0]) : -1;
}

int64_t Balance(Store& store, const std::string& owner) {
  auto tx = store.Begin();
  if (!tx.ok()) return -1;
  auto rows = (*tx)->Query("SELECT balance FROM accounts WHERE owner = ?", {owner});
  (*tx)->Rollback();
  return rows.ok() && !rows->empty() ? AsInt((*rows)[0][0]) : -1;
}

}  // namespace idem::testing

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace idem::testing {

ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& stdin_text) {
  TempDir io;
  const std::string in = io.File("in"), out = io.File("out"), err = io.File("err");
  std::ofstream(in, std::ios::binary) << stdin_text;
  pid_t pid = fork();
  if (pid == 0) {
    if (!freopen(in.c_str(), "rb", stdin) || !freopen(out.c_str(), "wb", stdout) ||
        !freopen(err.c_str(), "wb", stderr))
      _exit(127);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ProcessResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  auto slurp = [](const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  };
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

}  // namespace idem::testing
