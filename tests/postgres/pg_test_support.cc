#include "postgres/pg_test_support.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "idem/postgres_store.h"

namespace idem::testing {

std::string PostgresTestUrl() {
  const char* url = std::getenv("IDEM_TEST_POSTGRES_URL");
  return url ? url : "";
}

bool RunMaintenanceSql(const std::string& sql) {
  PGconn* conn = PQconnectdb(PostgresTestUrl().c_str());
  PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);  // "does not exist, skipping"
  bool ok = PQstatus(conn) == CONNECTION_OK;
  if (!ok) {
    ADD_FAILURE() << "maintenance connection failed: " << PQerrorMessage(conn);
  } else {
    PGresult* res = PQexec(conn, sql.c_str());
    ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;
    if (!ok) ADD_FAILURE() << "[" << sql << "] failed: " << PQresultErrorMessage(res);
    PQclear(res);
  }
  PQfinish(conn);
  return ok;
}

std::string FreshSchemaUrl() {
  static std::atomic<int> n{0};
  const std::string base = PostgresTestUrl();
  const std::string schema = "idem_t_" + std::to_string(getpid()) + "_" + std::to_string(++n);
  // A leftover from an earlier run whose process had the same pid goes first.
  if (!RunMaintenanceSql("DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema)) return "";
  return base + (base.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema;
}

std::unique_ptr<Store> OpenPgStoreOrFail(const std::string& url) {
  auto s = OpenPostgresStore(url, PostgresStoreOptions{}, Env::Default());
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

void CreatePortableEffectTables(Store& store) {
  Status s = store.ExecScript(
      "CREATE TABLE IF NOT EXISTS effects (key TEXT NOT NULL, msg_id TEXT NOT NULL, amount BIGINT NOT NULL);"
      "CREATE TABLE IF NOT EXISTS accounts (owner VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL);"
      "INSERT INTO accounts (owner, balance) VALUES ('u1', 1000000), ('u2', 1000000) ON CONFLICT DO NOTHING;");
  ASSERT_TRUE(s.ok()) << s.ToString();
}

HandlerSpec PortablePayHandler(const std::string& topic) {
  HandlerSpec spec;
  spec.topic = topic;
  spec.key.fields = {"payment_id"};
  spec.fn = [](HandlerContext& ctx) -> HandlerResult {
    auto doc = nlohmann::json::parse(ctx.message.payload);
    const int64_t amount = doc.at("amount").get<int64_t>();
    const std::string owner = doc.value("user", "u1");
    auto ins = ctx.tx.Exec("INSERT INTO effects (key, msg_id, amount) VALUES (?, ?, ?)",
                           {ctx.idempotency_key, ctx.message.id, amount});
    if (!ins.ok()) return HandlerResult::Retryable(ins.status().ToString());
    // One UPDATE, not read-modify-write: concurrent consumers on PostgreSQL
    // (READ COMMITTED) would otherwise lose each other's debits.
    auto upd = ctx.tx.Exec("UPDATE accounts SET balance = balance - ? WHERE owner = ?", {amount, owner});
    if (!upd.ok()) return HandlerResult::Retryable(upd.status().ToString());
    if (*upd == 0) return HandlerResult::Permanent("no account " + owner);
    return HandlerResult::Ok("charged " + std::to_string(amount));
  };
  return spec;
}

namespace {
int64_t ReadInt(Store& store, const std::string& sql, const std::vector<Value>& params) {
  auto tx = store.Begin();
  if (!tx.ok()) {
    ADD_FAILURE() << tx.status().ToString();
    return -1;
  }
  auto rows = (*tx)->Query(sql, params);
  if (!rows.ok()) ADD_FAILURE() << rows.status().ToString();
  return rows.ok() && !rows->empty() ? AsInt((*rows)[0][0]) : -1;
}
}  // namespace

int64_t CountPortableEffects(Store& store) { return ReadInt(store, "SELECT COUNT(*) FROM effects", {}); }

int64_t PortableBalance(Store& store, const std::string& owner) {
  return ReadInt(store, "SELECT balance FROM accounts WHERE owner = ?", {owner});
}

}  // namespace idem::testing
