#include "invariants.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "idem/broker.h"
#include "idem/store.h"
#include "payments/events.h"

namespace idem::payments::testing {
namespace {

Rows Select(Store& store, const std::string& sql, const std::vector<Value>& params = {}) {
  auto tx = store.Begin();
  EXPECT_TRUE(tx.ok()) << tx.status().ToString();
  if (!tx.ok()) return {};
  auto rows = (*tx)->Query(sql, params);
  EXPECT_TRUE(rows.ok()) << sql << ": " << rows.status().ToString();
  (*tx)->Rollback();
  return rows.ok() ? *rows : Rows{};
}

// How many effect rows back one event.
int64_t EffectRows(Store& store, const BusinessEvent& e) {
  switch (e.effect) {
    case EffectKind::kLedger:
      return AsInt(Select(store, "SELECT COUNT(*) FROM pay_account_flows WHERE biz_no = ? AND type = ?",
                          {e.key, e.key2})[0][0]);
    case EffectKind::kPoints:
      return AsInt(Select(store, "SELECT COUNT(*) FROM pay_points WHERE payment_id = ? AND scene = ?",
                          {e.key, e.key2})[0][0]);
    case EffectKind::kStockMove:
      return AsInt(Select(store, "SELECT COUNT(*) FROM pay_stock_moves WHERE order_no = ?", {e.key})[0][0]);
    case EffectKind::kFinished: {
      Rows r = Select(store, "SELECT status FROM pay_orders WHERE order_no = ?", {e.key});
      return !r.empty() && AsText(r[0][0]) == "FINISHED" ? 1 : 0;
    }
  }
  return -1;
}

}  // namespace

std::string StorePath(const std::string& dir) { return dir + "/store.db"; }
std::string QueuePath(const std::string& dir) { return dir + "/queue.db"; }

bool Violations::empty() const {
  return ledger_duplicates.empty() && unbalanced.empty() && wrong_balance.empty() && regressed.empty() &&
         not_applied_once.empty() && refusal_missing.empty() && parked_wrongly.empty() && left_in_queue.empty();
}

std::string Violations::Summary() const {
  std::ostringstream out;
  auto part = [&out](const char* name, const std::vector<std::string>& v) {
    if (v.empty()) return;
    out << name << ": " << v.size();
    for (size_t i = 0; i < v.size() && i < 3; ++i) out << (i ? "; " : " (") << v[i];
    out << ")\n";
  };
  part("ledger duplicates", ledger_duplicates);
  part("unbalanced accounts", unbalanced);
  part("wrong balances", wrong_balance);
  part("regressed or wrong order states", regressed);
  part("events not applied exactly once", not_applied_once);
  part("refusals missing from the terminal queue", refusal_missing);
  part("parked wrongly", parked_wrongly);
  part("left in the queue", left_in_queue);
  return out.str();
}

int RepeatPaymentsCharged(const std::string& dir, const Workload& w) {
  auto store = OpenSqliteStore(StorePath(dir), {}, Env::Default());
  EXPECT_TRUE(store.ok());
  if (!store.ok()) return -1;
  std::map<std::string, std::string> order_of_payment;  // the order each payment pays
  for (const BusinessEvent& e : w.events)
    if (e.topic == kTopicPaySuccess) order_of_payment[e.key] = ParsePaySuccess(e.payload)->order_no;
  std::map<std::string, const OrderSeed*> by_order;
  for (const OrderSeed& o : w.orders) by_order[o.order_no] = &o;
  std::map<std::string, int> seen;  // user/sku/amount → orders so far
  int charged = 0;
  for (const auto& [payment, order_no] : order_of_payment) {
    const OrderSeed& o = *by_order.at(order_no);
    if (seen[o.user_id + "/" + o.sku + "/" + std::to_string(o.amount_cents)]++ == 0) continue;
    const int64_t rows = AsInt(Select(**store, "SELECT COUNT(*) FROM pay_account_flows WHERE biz_no = ? AND type = ?",
                                      {payment, std::string(kFlowPay)})[0][0]);
    if (rows != 1) return -1;
    ++charged;
  }
  return charged;
}

Violations CheckInvariants(const std::string& dir, const Workload& w, const std::string& broker_url) {
  Violations v;
  auto store_or = OpenSqliteStore(StorePath(dir), {}, Env::Default());
  EXPECT_TRUE(store_or.ok()) << store_or.status().ToString();
  if (!store_or.ok()) return v;
  Store& store = **store_or;

  for (const Row& r : Select(store, "SELECT biz_no, type, COUNT(*) FROM pay_account_flows GROUP BY biz_no, type "
                                    "HAVING COUNT(*) > 1"))
    v.ledger_duplicates.push_back(AsText(r[0]) + "/" + AsText(r[1]) + " x" + AsText(r[2]));

  for (const Row& r : Select(store, "SELECT a.user_id, a.balance_cents, a.opening_cents + "
                                    "(SELECT COALESCE(SUM(f.amount_cents), 0) FROM pay_account_flows f "
                                    "WHERE f.user_id = a.user_id) FROM pay_accounts a")) {
    const std::string user = AsText(r[0]);
    if (AsInt(r[1]) != AsInt(r[2]))
      v.unbalanced.push_back(user + ": balance " + AsText(r[1]) + ", opening + flows " + AsText(r[2]));
    if (AsInt(r[1]) != w.expected.balance_cents.at(user))
      v.wrong_balance.push_back(user + ": " + AsText(r[1]) + " != " + std::to_string(w.expected.balance_cents.at(user)));
  }

  for (const Row& r : Select(store, "SELECT order_no, status FROM pay_orders"))
    if (AsText(r[1]) != w.expected.state.at(AsText(r[0])))
      v.regressed.push_back(AsText(r[0]) + " is " + AsText(r[1]) + ", expected " + w.expected.state.at(AsText(r[0])));

  for (const BusinessEvent& e : w.events) {
    if (e.expect_parked) continue;
    const int64_t n = EffectRows(store, e);
    if (n != 1) v.not_applied_once.push_back(e.topic + " " + e.key + "/" + e.key2 + ": " + std::to_string(n) + " rows");
  }

  auto queue_or = OpenBroker(broker_url.empty() ? QueuePath(dir) : broker_url, {}, Env::Default());
  EXPECT_TRUE(queue_or.ok()) << queue_or.status().ToString();
  if (!queue_or.ok()) return v;
  Broker& queue = **queue_or;
  std::map<std::string, size_t> event_of;
  for (const Publication& p : w.publications) event_of[p.message_id] = p.event;
  std::map<size_t, bool> refused;
  EXPECT_NE(queue.dead_letters(), nullptr) << "the run's broker has no dead-letter queue to check";
  if (!queue.dead_letters()) return v;
  auto dead = queue.dead_letters()->List(100'000);
  EXPECT_TRUE(dead.ok());
  for (const DeadLetter& d : dead.ok() ? *dead : std::vector<DeadLetter>{}) {
    auto ev = event_of.find(d.message.id);
    if (ev != event_of.end() && w.events[ev->second].expect_parked &&
        d.reason.find(w.events[ev->second].expect_reason) != std::string::npos)
      refused[ev->second] = true;
    else
      v.parked_wrongly.push_back(d.message.id + " " + d.message.topic + ": " + d.reason);
  }
  for (size_t i = 0; i < w.events.size(); ++i)
    if (w.events[i].expect_parked && !refused.count(i))
      v.refusal_missing.push_back(w.events[i].topic + " " + w.events[i].key);
  auto stats = queue.Stats();
  EXPECT_TRUE(stats.ok());
  // -1: the broker cannot tell (RabbitMQ's in-flight count; its consumers are closed by now).
  const int64_t left = stats.ok() ? std::max<int64_t>(stats->ready, 0) + std::max<int64_t>(stats->delayed, 0) +
                                        std::max<int64_t>(stats->in_flight, 0)
                                  : 0;
  if (left > 0) v.left_in_queue.push_back(std::to_string(left) + " message(s)");
  return v;
}

}  // namespace idem::payments::testing
