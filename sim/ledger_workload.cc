#include "sim/ledger_workload.h"

#include <nlohmann/json.hpp>

#include "core/key.h"
#include "sim/hostile_payloads.h"

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
    // The id by its exact text (ids may be longer than a double holds); the rest
    // with a JSON library, without exceptions: what it cannot read is refused
    // for good, as a careful service does.
    auto id = BusinessKeyFromPayload(ctx.message.payload, {"payment_id"});
    auto doc = nlohmann::json::parse(ctx.message.payload, nullptr, false);
    if (!id.ok() || doc.is_discarded() || !doc.contains("user") || !doc["user"].is_string() ||
        !doc.contains("amount") || !doc["amount"].is_number_integer())
      return HandlerResult::Permanent("payload is not a payment the ledger can read");
    const std::string user = doc["user"].get<std::string>();
    const int64_t amount = doc["amount"].get<int64_t>();
    // The bank first (outside the transaction), keyed so it deduplicates a retry.
    bank_.calls++;
    auto [it, fresh] = bank_.charges.emplace(ctx.idempotency_key, amount);
    if (!fresh && it->second != amount) return HandlerResult::Permanent("bank: idempotency key reused with another amount");
    auto flow = ctx.tx.Exec("INSERT INTO sim_flows (biz_no, type, user, amount) VALUES (?, 'PAY', ?, ?)",
                            {*id, user, -amount});
    if (!flow.ok()) return HandlerResult::Retryable(flow.status().ToString());
    auto upd = ctx.tx.Exec("UPDATE sim_accounts SET balance = balance - ? WHERE user = ? AND balance >= ?",
                           {amount, user, amount});
    if (!upd.ok()) return HandlerResult::Retryable(upd.status().ToString());
    if (*upd == 0) return HandlerResult::Retryable("insufficient balance");
    return HandlerResult::Ok();
  };
  return {pay};
}

namespace {

// The payload exactly as nlohmann::json printed it when the workload built it
// with the library (members sorted): `id_json` is the id as JSON text.
std::string PayPayload(const std::string& id_json, const std::string& user, int64_t amount) {
  return "{\"amount\":" + std::to_string(amount) + ",\"payment_id\":" + id_json + ",\"user\":\"" + user + "\"}";
}

}  // namespace

std::vector<Event> LedgerWorkload::Events(FaultDice& dice, int count) {
  std::vector<Event> out;
  SimEnv& env = dice.env();
  struct Pay {
    std::string id_json, user;
    int64_t amount = 0;
  };
  std::vector<Pay> pays;  // per event; empty id for poison
  auto push = [&](Event e, Pay p) {
    const size_t index = out.size();
    e.msg.topic = "pay";
    e.msg.id = "e" + std::to_string(index);
    e.msg.headers[kEventHeader] = std::to_string(index);
    // What the checker expects, by the workload's own knowledge rather than by
    // parsing the payload again: the id's exact text and the amount.
    const bool quoted = !p.id_json.empty() && p.id_json[0] == '"';
    expected_.push_back({quoted ? p.id_json.substr(1, p.id_json.size() - 2) : p.id_json, p.amount});
    out.push_back(std::move(e));
    pays.push_back(std::move(p));
  };
  auto user = [&] { return "u" + std::to_string(env.Range(0, kUsers - 1)); };
  for (int i = 0; i < count; ++i) {
    Event e;
    const int n = static_cast<int>(out.size());
    if (dice.Roll(Fault::kPoisonMessage)) {
      e.legit = false;
      const int64_t variant = env.Range(0, 3 + static_cast<int64_t>(Hostile::kCount));  // the last: big ids
      switch (variant) {
        case 0: e.msg.payload = "{\"payment_id\": \"P"; break;                     // truncated JSON
        case 1: e.msg.payload = R"({"user":"u1","amount":5})"; break;             // no key
        case 2: e.msg.payload = "{\"payment_id\":\"X" + std::to_string(n) + "\",\"pad\":\"" +
                                std::string(5000, 'x') + "\"}";                   // oversized
          break;
        default:
          if (variant < 3 + static_cast<int64_t>(Hostile::kCount)) {
            e.msg.payload = HostilePayload(static_cast<Hostile>(variant - 3), n, "amount");
            break;
          }
          // Hostile but legitimate: two payments whose ids differ only past a
          // double's precision, same user and amount. Both must be applied; a
          // key taken through a double makes the second a "duplicate" — lost.
          const std::string u = user();
          const int64_t amount = env.Range(1, 10'000);
          for (int which = 0; which < 2; ++which) {
            Event big;
            Pay p{BigIntegerId(n, which), u, amount};
            big.msg.payload = PayPayload(p.id_json, u, amount);
            push(std::move(big), std::move(p));
          }
          continue;
      }
      push(std::move(e), {});
    } else if (!out.empty() && dice.Roll(Fault::kConflictingPayload)) {
      int j = static_cast<int>(env.Range(0, static_cast<int64_t>(out.size()) - 1));
      while (j >= 0 && (!out[j].legit || out[j].conflicts_with >= 0)) --j;  // one conflict per key
      if (j < 0) {
        --i;
        continue;
      }
      Pay p = pays[j];
      p.amount += 1;
      e.msg.payload = PayPayload(p.id_json, p.user, p.amount);
      e.legit = false;
      e.conflicts_with = j;
      out[j].conflicts_with = n;  // the pair: exactly one of them is applied
      push(std::move(e), std::move(p));
    } else {
      Pay p{"\"P" + std::to_string(n) + "\"", user(), 0};
      p.amount = env.Range(1, 10'000);
      e.msg.payload = PayPayload(p.id_json, p.user, p.amount);
      push(std::move(e), std::move(p));
    }
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
  auto applied_amount = [&](size_t i) -> std::optional<int64_t> {
    const Expected& x = expected_[i];
    if (x.id.empty()) return std::nullopt;  // poison: it has no payment id
    auto it = flows.find(x.id);
    if (it == flows.end()) return std::nullopt;
    if (-it->second[0] != x.amount) return std::nullopt;  // the other payload won
    return -it->second[0];
  };

  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    const std::string* reason = parked_reason(static_cast<int>(i));
    const bool applied = applied_amount(i).has_value();
    const std::string name = "event " + std::to_string(i) + " (" + e.msg.id + ")";
    if (!applied && !reason) report.Fail("nothing_lost", name + " was neither applied nor parked");
    if (e.conflicts_with >= 0) {
      // Same key, two payloads. Never both applied; if one was applied, the other
      // is parked as a conflict. If neither was (the first failed for good), both
      // are parked for a person to decide: money is not guessed.
      const bool twin_applied = applied_amount(static_cast<size_t>(e.conflicts_with)).has_value();
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
      for (const auto& [i, reason] : parked) parked_after_charge |= expected_[static_cast<size_t>(i)].id == biz;
      if (!parked_after_charge) report.Fail("bank_matches_ledger", "bank charged " + key + " but the ledger has no flow");
    }
  }
}

}  // namespace idem::sim
