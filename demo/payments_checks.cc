#include "demo/payments_checks.h"

#include <algorithm>

#include "payments/events.h"

namespace idem::demo {
namespace {

Result<Rows> ReadOnly(Store& store, std::string_view sql) {
  auto tx = store.Begin();
  if (!tx.ok()) return tx.status();
  auto rows = (*tx)->Query(sql, {});
  (*tx)->Rollback();
  return rows;
}

// From rows of (key, count) or (key a, key b, count).
Result<EffectCounts> CountBy(Store& store, std::string_view sql) {
  auto rows = ReadOnly(store, sql);
  if (!rows.ok()) return rows.status();
  EffectCounts out;
  for (const Row& row : *rows)
    out[row.size() == 3 ? EffectKey(AsText(row[0]), AsText(row[1])) : AsText(row[0])] = AsInt(row.back());
  return out;
}

int64_t Get(const EffectCounts& c, const std::string& k) {
  auto it = c.find(k);
  return it == c.end() ? 0 : it->second;
}

}  // namespace

std::string EffectKey(const std::string& a, const std::string& b) { return a + '\x1f' + b; }

std::string ShowEffectKey(const std::string& key) {
  std::string out = key;
  std::replace(out.begin(), out.end(), '\x1f', '/');
  return out;
}

int64_t EffectRows::Total() const {
  int64_t n = 0;
  for (const EffectCounts* c : {&flows, &points, &moves, &notices})
    for (const auto& [k, v] : *c) n += v;
  return n;
}

int64_t EffectRows::Duplicates() const {
  int64_t n = 0;
  for (const EffectCounts* c : {&flows, &points, &moves, &notices})
    for (const auto& [k, v] : *c) n += v > 1 ? v - 1 : 0;
  return n;
}

int64_t EffectRows::DoubleCharges() const {
  const std::string pay_suffix = std::string("\x1f") + payments::kFlowPay;
  int64_t n = 0;
  for (const auto& [k, v] : flows)
    if (v > 1 && k.ends_with(pay_suffix)) n++;
  return n;
}

bool EffectRows::Applied(const BusinessEvent& e) const {
  switch (e.effect) {
    case EffectKind::kLedger: return Get(flows, EffectKey(e.key, e.key2)) > 0;
    case EffectKind::kPoints: return Get(points, EffectKey(e.key, e.key2)) > 0;
    case EffectKind::kStockMove: return Get(moves, e.key) > 0;
    case EffectKind::kFinished: return true;
  }
  return false;
}

Result<EffectRows> ReadEffectRows(Store& store) {
  auto f = CountBy(store, "SELECT biz_no, type, COUNT(*) FROM pay_account_flows GROUP BY biz_no, type");
  if (!f.ok()) return f.status();
  auto p = CountBy(store, "SELECT payment_id, scene, COUNT(*) FROM pay_points GROUP BY payment_id, scene");
  if (!p.ok()) return p.status();
  auto m = CountBy(store, "SELECT order_no, COUNT(*) FROM pay_stock_moves GROUP BY order_no");
  if (!m.ok()) return m.status();
  auto n = CountBy(store, "SELECT event_key, COUNT(*) FROM pay_notifications GROUP BY event_key");
  if (!n.ok()) return n.status();
  return EffectRows{std::move(*f), std::move(*p), std::move(*m), std::move(*n)};
}

Result<std::vector<AccountBalance>> ReadAccountBalances(Store& store) {
  auto rows = ReadOnly(store,
                       "SELECT a.user_id, a.balance_cents, a.opening_cents, COALESCE(SUM(f.amount_cents), 0) "
                       "FROM pay_accounts a LEFT JOIN pay_account_flows f ON f.user_id = a.user_id "
                       "GROUP BY a.user_id, a.balance_cents, a.opening_cents");
  if (!rows.ok()) return rows.status();
  std::vector<AccountBalance> out;
  for (const Row& row : *rows) out.push_back({AsText(row[0]), AsInt(row[1]), AsInt(row[2]), AsInt(row[3])});
  return out;
}

}  // namespace idem::demo
