#include "sim/outbox_chain_workload.h"

#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "sim/ledger_workload.h"

namespace idem::sim {
namespace {

constexpr const char* kOrderTopic = "order.placed";
constexpr const char* kGrantTopic = "points.grant";

Rows Select(Store& store, const std::string& sql) {
  auto tx = store.Begin();
  if (!tx.ok()) return {};
  auto rows = (*tx)->Query(sql, {});
  (*tx)->Rollback();
  return rows.ok() ? *rows : Rows{};
}

std::string GrantKey(const std::string& order_id, int seq) { return "grant:" + order_id + ":" + std::to_string(seq); }

// key → how many rows hold it
std::map<std::string, int> CountBy(Store& store, const std::string& sql) {
  std::map<std::string, int> n;
  for (const Row& r : Select(store, sql)) n[AsText(r[0])]++;
  return n;
}

void Doubles(CheckReport& report, const std::map<std::string, int>& counts, const std::string& what) {
  for (const auto& [key, n] : counts)
    if (n > 1) report.Fail("no_duplicate_effect", what + " " + key + " written " + std::to_string(n) + " times");
}

// A message parked after the injected faults outlasted its retries is visible, not lost.
bool GaveUpOnInjectedFaults(const std::string& reason) { return reason.find("simulated") != std::string::npos; }

}  // namespace

Status ChainWorkload::Setup(Store& store, bool) {
  // No unique keys: only the guards stand between a copy and a second row.
  return store.ExecScript(
      "CREATE TABLE chain_orders (order_id TEXT NOT NULL, amount INTEGER NOT NULL);"
      "CREATE TABLE chain_grants (grant_key TEXT NOT NULL, order_id TEXT NOT NULL, points INTEGER NOT NULL);"
      // Every outbox row ever committed, kept apart from the table the relay cleans up.
      "CREATE TABLE chain_emits (msg_key TEXT NOT NULL, message_id TEXT NOT NULL);"
      "CREATE TRIGGER chain_emit_log AFTER INSERT ON idem_outbox "
      "BEGIN INSERT INTO chain_emits (msg_key, message_id) VALUES (new.msg_key, new.message_id); END;");
}

std::vector<HandlerSpec> ChainWorkload::Handlers(SimEnv&) {
  HandlerSpec order;
  order.topic = kOrderTopic;
  order.key.fields = {"order_id"};
  order.fn = [](HandlerContext& ctx) -> HandlerResult {
    auto doc = nlohmann::json::parse(ctx.message.payload, nullptr, false);
    if (doc.is_discarded() || !doc.contains("order_id") || !doc["order_id"].is_string() ||
        !doc.contains("amount") || !doc["amount"].is_number_integer() || !doc.contains("emits") ||
        !doc["emits"].is_number_integer())
      return HandlerResult::Permanent("payload is not an order the service can read");
    const std::string id = doc["order_id"].get<std::string>();
    const int64_t amount = doc["amount"].get<int64_t>();
    auto ins = ctx.tx.Exec("INSERT INTO chain_orders (order_id, amount) VALUES (?, ?)", {id, amount});
    if (!ins.ok()) return HandlerResult::FromStatus(ins.status(), "record the order");
    for (int seq = 0; seq < doc["emits"].get<int>(); ++seq) {
      nlohmann::json grant{{"order_id", id}, {"seq", seq}, {"points", amount / 10 + seq}};
      Status s = ctx.Emit({.topic = kGrantTopic, .key = GrantKey(id, seq), .payload = grant.dump(), .headers = {}});
      if (!s.ok()) return HandlerResult::FromStatus(s, "emit a points grant");
    }
    return HandlerResult::Ok();
  };
  return {order};
}

std::optional<DownstreamStage> ChainWorkload::Downstream() {
  HandlerSpec grant;
  grant.topic = kGrantTopic;  // keyed by the broker key the relay publishes: the outbox row's business key
  grant.fn = [](HandlerContext& ctx) -> HandlerResult {
    auto doc = nlohmann::json::parse(ctx.message.payload, nullptr, false);
    if (doc.is_discarded() || !doc.contains("order_id") || !doc["order_id"].is_string() ||
        !doc.contains("points") || !doc["points"].is_number_integer())
      return HandlerResult::Permanent("payload is not a points grant");
    auto ins = ctx.tx.Exec("INSERT INTO chain_grants (grant_key, order_id, points) VALUES (?, ?, ?)",
                           {ctx.message.key, doc["order_id"].get<std::string>(), doc["points"].get<int64_t>()});
    if (!ins.ok()) return HandlerResult::FromStatus(ins.status(), "record the grant");
    return HandlerResult::Ok();
  };
  DownstreamStage stage;
  stage.handlers = {grant};
  stage.guard = options_.downstream_guard;
  stage.relay_marks_before_publishing = options_.relay_marks_before_publishing;
  return stage;
}

std::vector<Event> ChainWorkload::Events(FaultDice& dice, int count) {
  SimEnv& env = dice.env();
  std::vector<Event> out;
  auto payload = [](const Order& o) {
    return nlohmann::json{{"order_id", o.id}, {"amount", o.amount}, {"emits", o.emits}}.dump();
  };
  for (int i = 0; i < count; ++i) {
    Event e;
    Order o;
    e.msg.topic = kOrderTopic;
    e.msg.id = "e" + std::to_string(i);
    e.msg.headers[kEventHeader] = std::to_string(i);
    int twin = -1;
    if (dice.Roll(Fault::kPoisonMessage)) {
      e.legit = false;
      e.msg.payload = env.Chance(0.5) ? "{\"order_id\": \"O" : "{\"order_id\":\"X" + std::to_string(i) + "\"}";
    } else if (!out.empty() && dice.Roll(Fault::kConflictingPayload)) {
      // The same order again with another amount: one copy is applied, the other
      // parked as a conflict, and only the applied one's grants go out.
      for (twin = static_cast<int>(env.Range(0, i - 1)); twin >= 0; --twin)
        if (!orders_[twin].id.empty() && out[twin].conflicts_with < 0) break;  // one conflict per order
    }
    if (twin >= 0) {
      o = orders_[twin];
      o.amount += 1;
      e.legit = false;
      e.conflicts_with = twin;
      out[twin].conflicts_with = i;
      e.msg.payload = payload(o);
    } else if (e.legit) {
      o = {"O" + std::to_string(i), env.Range(1, 10'000), static_cast<int>(env.Range(1, 3))};
      e.msg.payload = payload(o);
    }
    out.push_back(std::move(e));
    orders_.push_back(std::move(o));
  }
  return out;
}

void ChainWorkload::Check(Store& store, const SimBroker& broker, const std::vector<Event>& events,
                          CheckReport& report) {
  for (const char* c :
       {"no_duplicate_effect", "nothing_lost", "legit_not_blocked", "conflicts_detected", "emits_match_effects"})
    report.Ran(c);
  std::set<std::pair<std::string, int64_t>> applied_orders;  // (order id, amount)
  for (const Row& r : Select(store, "SELECT order_id, amount FROM chain_orders"))
    applied_orders.emplace(AsText(r[0]), AsInt(r[1]));
  const auto orders = CountBy(store, "SELECT order_id FROM chain_orders");
  const auto emits = CountBy(store, "SELECT msg_key FROM chain_emits");
  Doubles(report, orders, "order");
  Doubles(report, emits, "outbox message");

  const auto parked = ParkedReasons(broker);
  auto reason_of = [&](int i) -> const std::string* {
    auto p = parked.find(i);
    return p == parked.end() ? nullptr : &p->second;
  };
  auto applied = [&](int i) { return applied_orders.count({orders_[i].id, orders_[i].amount}) > 0; };
  std::set<std::string> expected_emits;
  for (int i = 0; i < static_cast<int>(events.size()); ++i) {
    const Order& o = orders_[i];
    const std::string* reason = reason_of(i);
    const std::string name = "event " + std::to_string(i) + (o.id.empty() ? " (poison)" : " (order " + o.id + ")");
    if (o.id.empty()) {
      if (!reason) report.Fail("nothing_lost", name + " is not in the terminal queue");
      continue;
    }
    const bool is_applied = applied(i);
    if (!is_applied && !reason) report.Fail("nothing_lost", name + " was neither applied nor parked");
    if (const int twin = events[i].conflicts_with; twin >= 0) {
      // Never both; the copy that lost is parked as a conflict (both parked if the first failed for good).
      if (is_applied && applied(twin)) report.Fail("conflicts_detected", name + ": both amounts of one order applied");
      if (!is_applied && applied(twin) && (!reason || reason->find("different payload") == std::string::npos))
        report.Fail("conflicts_detected", name + ": lost to the other amount but was not parked as a conflict");
    } else if (!is_applied && reason && !GaveUpOnInjectedFaults(*reason)) {
      report.Fail("legit_not_blocked", name + " was parked: " + *reason);
    }
    if (!is_applied) continue;
    for (int seq = 0; seq < o.emits; ++seq) {
      expected_emits.insert(GrantKey(o.id, seq));
      if (!emits.count(GrantKey(o.id, seq)))
        report.Fail("emits_match_effects", name + " was applied but never emitted " + GrantKey(o.id, seq));
    }
  }
  // An outbox row whose order is not in the database: sent for an effect that rolled back.
  for (const auto& [key, n] : emits)
    if (!expected_emits.count(key)) report.Fail("emits_match_effects", "outbox message " + key + " has no order");
}

void ChainWorkload::CheckDownstream(Store& store, const SimBroker& downstream, CheckReport& report) {
  report.Ran("outbox_drained");
  const auto grants = CountBy(store, "SELECT grant_key FROM chain_grants");
  const auto emits = CountBy(store, "SELECT msg_key FROM chain_emits");
  Doubles(report, grants, "points grant");

  std::map<std::string, std::string> parked;  // grant key → reason
  for (const BrokerEntry& e : downstream.entries())
    if (e.state == BrokerEntry::State::kDead) parked.emplace(e.msg.key, e.dead_reason);
  for (const auto& [key, n] : emits) {
    auto p = parked.find(key);
    if (p != parked.end() && !GaveUpOnInjectedFaults(p->second))
      report.Fail("legit_not_blocked", "points grant " + key + " was parked downstream: " + p->second);
    if (!grants.count(key) && p == parked.end())
      report.Fail("nothing_lost", "outbox message " + key + " was emitted but never granted downstream");
  }
  for (const auto& [key, n] : grants)
    if (!emits.count(key)) report.Fail("emits_match_effects", "points grant " + key + " was never emitted");

  for (const Row& r : Select(store, "SELECT msg_key, state, attempts, last_error FROM idem_outbox "
                                    "WHERE state <> 'SENT' ORDER BY id"))
    report.Fail("outbox_drained", "outbox message " + AsText(r[0]) + " is " + AsText(r[1]) + " after " +
                                      std::to_string(AsInt(r[2])) + " attempts: " + AsText(r[3]));
}

}  // namespace idem::sim
