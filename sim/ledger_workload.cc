#include "sim/ledger_workload.h"

#include <nlohmann/json.hpp>

namespace idem::sim {
namespace {

constexpr int kUsers = 10;
constexpr int64_t kOpening = 1'000'000'000;

Rows Select(Store& store, const std::string& sql) {
  auto tx = store.Begin();
  if (!tx.ok()) return {};
  auto rows = (*tx)->Query(sql, {});
  return rows.ok() ? *rows : Rows{};
}

}  // namespace

std::multimap<int, std::string> ParkedReasons(const SimBroker& broker) {
  std::multimap<int, std::string> out;
  for (const BrokerEntry& e : broker.entries()) {
    if (e.state != BrokerEntry::State::kDead) continue;
    auto h = e.msg.headers.find(kEventHeader);
    if (h != e.msg.headers.end()) out.emplace(std::stoi(h->second), e.dead_reason);
  }
  return out;
}

Status LedgerWorkload::Setup(Store& store, bool) {
  IDEM_RETURN_IF_ERROR(store.ExecScript(
      "CREATE TABLE sim_accounts (user TEXT PRIMARY KEY, balance INTEGER NOT NULL, opening INTEGER NOT NULL);"
      "CREATE TABLE sim_flows (biz_no TEXT NOT NULL, type TEXT NOT NULL, user TEXT NOT NULL, amount INTEGER NOT NULL);"));
  for (int u = 0; u < kUsers; ++u)
    IDEM_RETURN_IF_ERROR(store.ExecScript("INSERT INTO sim_accounts VALUES ('u" + std::to_string(u) + "', " +
                                          std::to_string(kOpening) + ", " + std::to_string(kOpening) + ")"));
  return Status::OK();
}

std::vector<HandlerSpec> LedgerWorkload::Handlers(SimEnv&) {
  HandlerSpec pay;
  pay.topic = "pay";
  pay.key.fields = {"payment_id"};
  pay.fn = [this](HandlerContext& ctx) -> HandlerResult {
    auto doc = nlohmann::json::parse(ctx.message.payload);
    const std::string id = doc.at("payment_id").get<std::string>();
    const std::string user = doc.at("user").get<std::string>();
    const int64_t amount = doc.at("amount").get<int64_t>();
    // The bank first (outside the transaction), keyed so it deduplicates a retry.
    bank_.calls++;
    auto [it, fresh] = bank_.charges.emplace(ctx.idempotency_key, amount);
    if (!fresh && it->second != amount) return HandlerResult::Permanent("bank: idempotency key reused with another amount");
    auto flow = ctx.tx.Exec("INSERT INTO sim_flows (biz_no, type, user, amount) VALUES (?, 'PAY', ?, ?)",
                            {id, user, -amount});
    if (!flow.ok()) return HandlerResult::Retryable(flow.status().ToString());
    auto upd = ctx.tx.Exec("UPDATE sim_accounts SET balance = balance - ? WHERE user = ? AND balance >= ?",
                           {amount, user, amount});
    if (!upd.ok()) return HandlerResult::Retryable(upd.status().ToString());
    if (*upd == 0) return HandlerResult::Retryable("insufficient balance");
    return HandlerResult::Ok();
  };
  return {pay};
}

std::vector<Event> LedgerWorkload::Events(FaultDice& dice, int count) {
  std::vector<Event> out;
  SimEnv& env = dice.env();
  for (int i = 0; i < count; ++i) {
    Event e;
    e.msg.topic = "pay";
    e.msg.id = "e" + std::to_string(i);
    e.msg.headers[kEventHeader] = std::to_string(i);
    if (dice.Roll(Fault::kPoisonMessage)) {
      e.legit = false;
      switch (env.Range(0, 2)) {
        case 0: e.msg.payload = "{\"payment_id\": \"P"; break;                     // truncated JSON
        case 1: e.msg.payload = R"({"user":"u1","amount":5})"; break;             // no key
        default: e.msg.payload = "{\"payment_id\":\"X" + std::to_string(i) + "\",\"pad\":\"" +
                                 std::string(5000, 'x') + "\"}";                   // oversized
      }
    } else if (!out.empty() && dice.Roll(Fault::kConflictingPayload)) {
      int j = static_cast<int>(env.Range(0, static_cast<int64_t>(out.size()) - 1));
      while (j >= 0 && (!out[j].legit || out[j].conflicts_with >= 0)) --j;  // one conflict per key
      if (j < 0) {
        --i;
        continue;
      }
      auto doc = nlohmann::json::parse(out[j].msg.payload);
      doc["amount"] = doc["amount"].get<int64_t>() + 1;
      e.msg.payload = doc.dump();
      e.legit = false;
      e.conflicts_with = j;
      out[j].conflicts_with = i;  // the pair: exactly one of them is applied
    } else {
      nlohmann::json doc{{"payment_id", "P" + std::to_string(i)},
                         {"user", "u" + std::to_string(env.Range(0, kUsers - 1))},
                         {"amount", env.Range(1, 10'000)}};
      e.msg.payload = doc.dump();
    }
    out.push_back(std::move(e));
  }
  return out;
}

void LedgerWorkload::Check(Store& store, const SimBroker& broker, const std::vector<Event>& events,
                           CheckReport& report) {
  for (const char* c : {"no_duplicate_effect", "balance_matches_flows", "nothing_lost", "legit_not_blocked",
                        "conflicts_detected", "bank_matches_ledger"})
    report.Ran(c);

  std::map<std::string, std::vector<int64_t>> flows;  // biz_no → amounts
  for (const Row& r : Select(store, "SELECT biz_no, amount FROM sim_flows")) flows[AsText(r[0])].push_back(AsInt(r[1]));
  for (const auto& [biz, amounts] : flows)
    if (amounts.size() > 1)
      report.Fail("no_duplicate_effect", "payment " + biz + " charged " + std::to_string(amounts.size()) + " times");

  for (const Row& r : Select(store,
                             "SELECT a.user, a.balance, a.opening + COALESCE((SELECT SUM(amount) FROM sim_flows f "
                             "WHERE f.user = a.user), 0) FROM sim_accounts a"))
    if (AsInt(r[1]) != AsInt(r[2]))
      report.Fail("balance_matches_flows", "user " + AsText(r[0]) + " balance " + std::to_string(AsInt(r[1])) +
                                               " but opening + flows = " + std::to_string(AsInt(r[2])));

  const auto parked = ParkedReasons(broker);
  auto parked_reason = [&](int i) -> const std::string* {
    auto it = parked.find(i);
    return it == parked.end() ? nullptr : &it->second;
  };
  auto applied_amount = [&](const Event& e) -> std::optional<int64_t> {
    auto doc = nlohmann::json::parse(e.msg.payload, nullptr, false);
    if (!doc.is_object() || !doc.contains("payment_id") || !doc["payment_id"].is_string()) return std::nullopt;
    auto it = flows.find(doc["payment_id"].get<std::string>());
    if (it == flows.end()) return std::nullopt;
    if (-it->second[0] != doc["amount"].get<int64_t>()) return std::nullopt;  // the other payload won
    return -it->second[0];
  };

  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    const std::string* reason = parked_reason(static_cast<int>(i));
    const bool applied = applied_amount(e).has_value();
    const std::string name = "event " + std::to_string(i) + " (" + e.msg.id + ")";
    if (!applied && !reason) report.Fail("nothing_lost", name + " was neither applied nor parked");
    if (e.conflicts_with >= 0) {
      // Same key, two payloads. Never both applied; if one was applied, the other
      // is parked as a conflict. If neither was (the first failed for good), both
      // are parked for a person to decide: money is not guessed.
      const Event& twin = events[e.conflicts_with];
      const bool twin_applied = applied_amount(twin).has_value();
      if (applied && twin_applied) report.Fail("conflicts_detected", name + ": both payloads of one key applied");
      if (!applied && twin_applied && (!reason || reason->find("different payload") == std::string::npos))
        report.Fail("conflicts_detected", name + ": lost to the other payload but was not parked as a conflict");
      continue;
    }
    if (e.legit && !applied) {
      const bool gave_up_on_injected_faults = reason && reason->find("simulated") != std::string::npos;
      if (!gave_up_on_injected_faults)
        report.Fail("legit_not_blocked", name + " was not applied" + (reason ? ": parked: " + *reason : ""));
    }
    if (!e.legit && applied) report.Fail("nothing_lost", name + " is poison but was applied");
  }

  for (const auto& [key, amount] : bank_.charges) {
    const std::string biz = key.substr(key.find(':') + 1);
    if (!flows.count(biz)) {
      // Charged at the bank, then parked: reconciliation's job (a reversal), not a guard failure.
      bool parked_after_charge = false;
      for (const auto& [i, reason] : parked) parked_after_charge |= events[i].msg.payload.find("\"" + biz + "\"") != std::string::npos;
      if (!parked_after_charge) report.Fail("bank_matches_ledger", "bank charged " + key + " but the ledger has no flow");
    }
  }
}

}  // namespace idem::sim
