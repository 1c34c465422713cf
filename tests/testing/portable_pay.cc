#include "testing/portable_pay.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace idem::testing {

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

std::vector<Message> PaymentCopies(int payments, int copies, int chunk, int64_t* total) {
  std::vector<Message> out;
  for (int begin = 0; begin < payments; begin += chunk)
    for (int copy = 0; copy < copies; ++copy)
      for (int i = begin; i < std::min(begin + chunk, payments); ++i) {
        Message m;
        m.id = "P" + std::to_string(i) + "-copy" + std::to_string(copy);
        m.topic = "pay";
        m.payload = R"({"payment_id":"P)" + std::to_string(i) + R"(","amount":)" + std::to_string(i + 1) + "}";
        out.push_back(std::move(m));
        if (copy == 0) *total += i + 1;
      }
  return out;
}

}  // namespace idem::testing
