#include "testing/opposing_transfers.h"

#include <chrono>
#include <nlohmann/json.hpp>

#include "idem/guards.h"

namespace idem::testing {

void OneShotBarrier::ArriveAndWait() {
  std::unique_lock<std::mutex> lock(mu_);
  if (left_ == 0) return;
  if (--left_ == 0) {
    cv_.notify_all();
    return;
  }
  cv_.wait_for(lock, std::chrono::seconds(30), [this] { return left_ == 0; });
}

std::vector<Message> OpposingTransfers(int n) {
  std::vector<Message> messages;
  for (int i = 0; i < n; ++i) {
    const bool forth = i % 2 == 0;
    Message m;
    m.topic = "transfer";
    m.payload = nlohmann::json{{"transfer_id", "T" + std::to_string(i)},
                               {"from", forth ? "u1" : "u2"},
                               {"to", forth ? "u2" : "u1"},
                               {"amount", forth ? 7 : 3}}
                    .dump();
    messages.push_back(std::move(m));
  }
  return messages;
}

HandlerSpec TransferHandler(OneShotBarrier* barrier, std::string effect_sql) {
  static const BalanceColumn kAccounts{"accounts", "owner", "balance"};
  HandlerSpec spec;
  spec.topic = "transfer";
  spec.key.fields = {"transfer_id"};
  spec.fn = [barrier, effect_sql = std::move(effect_sql)](HandlerContext& ctx) -> HandlerResult {
    auto doc = nlohmann::json::parse(ctx.message.payload);
    const int64_t amount = doc.at("amount").get<int64_t>();
    auto debit = ChangeBalance(ctx.tx, kAccounts, doc.at("from").get<std::string>(), -amount);
    if (!debit.ok()) return HandlerResult::Retryable("debit: " + debit.status().ToString());
    barrier->ArriveAndWait();  // the first of each direction holds its source account's row lock here
    auto credit = ChangeBalance(ctx.tx, kAccounts, doc.at("to").get<std::string>(), amount);
    if (!credit.ok()) return HandlerResult::Retryable("credit: " + credit.status().ToString());
    auto ins = ctx.tx.Exec(effect_sql, {ctx.idempotency_key, ctx.message.id, amount});
    if (!ins.ok()) return HandlerResult::Retryable("effect: " + ins.status().ToString());
    return HandlerResult::Ok();
  };
  return spec;
}

}  // namespace idem::testing
