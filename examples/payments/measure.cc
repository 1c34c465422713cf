#include "payments/measure.h"

#include <algorithm>
#include <map>

#include "payments/events.h"
#include "payments/order_states.h"

namespace idem::payments {
namespace {

// Read-only queries in one transaction that is rolled back.
class Reader {
 public:
  static Result<Reader> Open(Store& store) {
    auto tx = store.Begin();
    if (!tx.ok()) return tx.status();
    return Reader(std::move(*tx));
  }
  Result<Rows> Query(std::string_view sql, const std::vector<Value>& params = {}) { return tx_->Query(sql, params); }
  ~Reader() {
    if (tx_) tx_->Rollback();
  }
  Reader(Reader&&) = default;

 private:
  explicit Reader(std::unique_ptr<StoreTx> tx) : tx_(std::move(tx)) {}
  std::unique_ptr<StoreTx> tx_;
};

// "a\x1fb" → count, for the composite keys of the effect tables.
using Counts = std::map<std::string, int64_t>;

std::string Join(const std::string& a, const std::string& b) { return a + '\x1f' + b; }

Result<Counts> CountBy(Reader& r, const std::string& sql) {
  auto rows = r.Query(sql);
  if (!rows.ok()) return rows.status();
  Counts out;
  for (const Row& row : *rows)
    out[row.size() == 3 ? Join(AsText(row[0]), AsText(row[1])) : AsText(row[0])] = AsInt(row.back());
  return out;
}

int64_t Extra(const Counts& c) {
  int64_t n = 0;
  for (const auto& [k, v] : c) n += v > 1 ? v - 1 : 0;
  return n;
}

int64_t Total(const Counts& c) {
  int64_t n = 0;
  for (const auto& [k, v] : c) n += v;
  return n;
}

int64_t Get(const Counts& c, const std::string& k) {
  auto it = c.find(k);
  return it == c.end() ? 0 : it->second;
}

struct EffectTables {
  Counts flows, points, moves, notices;
};

Result<EffectTables> ReadEffects(Reader& r) {
  EffectTables t;
  auto f = CountBy(r, "SELECT biz_no, type, COUNT(*) FROM pay_account_flows GROUP BY biz_no, type");
  auto p = CountBy(r, "SELECT payment_id, scene, COUNT(*) FROM pay_points GROUP BY payment_id, scene");
  auto m = CountBy(r, "SELECT order_no, COUNT(*) FROM pay_stock_moves GROUP BY order_no");
  auto n = CountBy(r, "SELECT event_key, COUNT(*) FROM pay_notifications GROUP BY event_key");
  if (!f.ok()) return f.status();
  if (!p.ok()) return p.status();
  if (!m.ok()) return m.status();
  if (!n.ok()) return n.status();
  t.flows = std::move(*f);
  t.points = std::move(*p);
  t.moves = std::move(*m);
  t.notices = std::move(*n);
  return t;
}

Status CheckAccounts(Reader& r, const Workload& w, Damage* d) {
  auto rows = r.Query(
      "SELECT a.user_id, a.balance_cents, a.opening_cents, COALESCE(SUM(f.amount_cents), 0) "
      "FROM pay_accounts a LEFT JOIN pay_account_flows f ON f.user_id = a.user_id "
      "GROUP BY a.user_id, a.balance_cents, a.opening_cents");
  if (!rows.ok()) return rows.status();
  for (const Row& row : *rows) {
    const std::string user = AsText(row[0]);
    const int64_t balance = AsInt(row[1]);
    auto want = w.expected.balance_cents.find(user);
    if (want == w.expected.balance_cents.end() || want->second != balance) d->wrong_balances++;
    if (balance != AsInt(row[2]) + AsInt(row[3])) d->unbalanced_accounts++;
  }
  return Status::OK();
}

Status CheckOrdersAndStock(Reader& r, const Workload& w, Damage* d) {
  auto orders = r.Query("SELECT order_no, status FROM pay_orders");
  if (!orders.ok()) return orders.status();
  for (const Row& row : *orders) {
    auto want = w.expected.state.find(AsText(row[0]));
    const std::string have = AsText(row[1]);
    if (want == w.expected.state.end() || want->second == have) continue;
    d->wrong_states++;
    if (OrderStates().Reaches(have, want->second)) d->regressed_states++;
  }
  auto stock = r.Query("SELECT sku, quantity FROM pay_stock");
  if (!stock.ok()) return stock.status();
  for (const Row& row : *stock) {
    auto want = w.expected.stock.find(AsText(row[0]));
    if (want == w.expected.stock.end() || want->second != AsInt(row[1])) d->wrong_stock++;
  }
  return Status::OK();
}

Status CheckTerminalQueue(Broker& queue, const Workload& w, Damage* d) {
  std::map<std::string, size_t> event_of;
  for (const Publication& p : w.publications) event_of[p.message_id] = p.event;
  std::map<size_t, bool> refused;  // event → found with the right reason
  DeadLetters* dead = queue.dead_letters();
  if (!dead) return Status::NotSupported("this broker has no dead-letter queue idem can list");
  int64_t after = 0;
  for (;;) {
    auto page = dead->List(500, after);
    if (!page.ok()) return page.status();
    if (page->empty()) break;
    for (const DeadLetter& dl : *page) {
      after = dl.id;
      d->parked++;
      auto ev = event_of.find(dl.message.id);
      const BusinessEvent* e = ev == event_of.end() ? nullptr : &w.events[ev->second];
      if (e && e->expect_parked && dl.reason.find(e->expect_reason) != std::string::npos)
        refused[ev->second] = true;
      else
        d->parked_wrongly++;
    }
  }
  for (size_t i = 0; i < w.events.size(); ++i)
    if (w.events[i].expect_parked) refused.count(i) ? d->parked_as_expected++ : d->refusals_missing++;
  auto stats = queue.Stats();
  if (!stats.ok()) return stats.status();
  // -1 is "this broker cannot tell" (RabbitMQ cannot count in-flight copies;
  // with the consumers closed, anything unacked is back among the ready ones).
  d->left_in_queue = std::max<int64_t>(stats->ready, 0) + std::max<int64_t>(stats->delayed, 0) +
                     std::max<int64_t>(stats->in_flight, 0);
  return Status::OK();
}

}  // namespace

bool Damage::Clean() const {
  return effects_applied == effects_expected && double_charges == 0 && duplicate_effects == 0 &&
         wrong_balances == 0 && unbalanced_accounts == 0 && regressed_states == 0 && wrong_states == 0 &&
         wrong_stock == 0 && blocked == 0 && parked_wrongly == 0 && refusals_missing == 0 && left_in_queue == 0;
}

Result<Damage> Measure(Store& store, Broker& queue, const Workload& w) {
  Damage d;
  d.effects_expected = w.expected.effects();
  {
    auto r = Reader::Open(store);
    if (!r.ok()) return r.status();
    auto t = ReadEffects(*r);
    if (!t.ok()) return t.status();
    d.effects_applied = Total(t->flows) + Total(t->points) + Total(t->moves) + Total(t->notices);
    d.duplicate_effects = Extra(t->flows) + Extra(t->points) + Extra(t->moves) + Extra(t->notices);
    const std::string pay_suffix = std::string("\x1f") + kFlowPay;
    for (const auto& [k, v] : t->flows)
      if (v > 1 && k.ends_with(pay_suffix)) d.double_charges++;
    for (const BusinessEvent& e : w.events) {
      if (e.expect_parked) continue;
      switch (e.effect) {
        case EffectKind::kLedger: d.blocked += Get(t->flows, Join(e.key, e.key2)) == 0; break;
        case EffectKind::kPoints: d.blocked += Get(t->points, Join(e.key, e.key2)) == 0; break;
        case EffectKind::kStockMove: d.blocked += Get(t->moves, e.key) == 0; break;
        case EffectKind::kFinished: break;  // a state, not a row: the state checks judge it
      }
    }
    IDEM_RETURN_IF_ERROR(CheckAccounts(*r, w, &d));
    IDEM_RETURN_IF_ERROR(CheckOrdersAndStock(*r, w, &d));
    auto ignored = r->Query("SELECT COUNT(*) FROM idem_records WHERE result_summary LIKE ?", {"%(ignored)"});
    if (!ignored.ok()) return ignored.status();
    d.ignored_by_state = AsInt((*ignored)[0][0]);
  }
  IDEM_RETURN_IF_ERROR(CheckTerminalQueue(queue, w, &d));
  return d;
}

Result<std::vector<int64_t>> ChargeTimes(Store& store, const std::string& payment_id) {
  auto r = Reader::Open(store);
  if (!r.ok()) return r.status();
  auto rows = r->Query("SELECT created_at_ms FROM pay_account_flows WHERE biz_no = ? AND type = ? ORDER BY created_at_ms",
                       {payment_id, std::string(kFlowPay)});
  if (!rows.ok()) return rows.status();
  std::vector<int64_t> out;
  for (const Row& row : *rows) out.push_back(AsInt(row[0]));
  return out;
}

}  // namespace idem::payments
