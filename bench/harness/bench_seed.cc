#include "harness/bench_seed.h"

#include <functional>
#include <vector>

#include "core/key.h"
#include "payments/events.h"
#include "payments/handlers.h"
#include "payments/order_states.h"
#include "payments/schema.h"
#include "store/record_sql.h"

namespace idem::bench {
namespace {

constexpr int64_t kRowsPerTransaction = 50'000;  // keeps one transaction's journal modest
constexpr int64_t kSeedTimeMs = 1'700'000'000'000;

using FillRow = std::function<void(int64_t i, std::vector<Value>& row)>;

// INSERT INTO table (columns) VALUES (?, …), (?, …), … for rows first … first+count-1.
Status InsertRows(Store& store, const std::string& table, const std::vector<std::string>& columns, int64_t first,
                  int64_t count, const FillRow& fill) {
  std::string head = "INSERT INTO " + table + " (";
  std::string tuple = "(";
  for (size_t c = 0; c < columns.size(); ++c) {
    head += (c ? ", " : "") + columns[c];
    tuple += c ? ", ?" : "?";
  }
  head += ") VALUES ";
  tuple += ")";
  std::vector<Value> row;
  for (int64_t tx_start = 0; tx_start < count; tx_start += kRowsPerTransaction) {
    auto tx = store.Begin();
    if (!tx.ok()) return tx.status();
    const int64_t tx_end = std::min(count, tx_start + kRowsPerTransaction);
    for (int64_t s = tx_start; s < tx_end; s += kRowsPerStatement) {
      const int64_t n = std::min(kRowsPerStatement, tx_end - s);
      std::string sql = head;
      std::vector<Value> params;
      params.reserve(static_cast<size_t>(n) * columns.size());
      for (int64_t r = 0; r < n; ++r) {
        sql += r ? ", " + tuple : tuple;
        row.clear();
        fill(first + s + r, row);
        for (Value& v : row) params.push_back(std::move(v));
      }
      IDEM_RETURN_IF_ERROR((*tx)->Exec(sql, params).status());
    }
    IDEM_RETURN_IF_ERROR((*tx)->Commit());
  }
  return Status::OK();
}

Status DropPaymentTables(Store& store) {
  return store.ExecScript(
      "DROP TABLE IF EXISTS pay_accounts; DROP TABLE IF EXISTS pay_orders; DROP TABLE IF EXISTS pay_account_flows; "
      "DROP TABLE IF EXISTS pay_points; DROP TABLE IF EXISTS pay_stock; DROP TABLE IF EXISTS pay_stock_moves; "
      "DROP TABLE IF EXISTS pay_notifications;");
}

Status SeedHistory(Store& store, const SeedPlan& plan) {
  const int64_t n = plan.history;
  const KeyOrder order = plan.order;
  IDEM_RETURN_IF_ERROR(InsertRows(
      store, "pay_orders",
      {"order_no", "user_id", "sku", "quantity", "amount_cents", "status", "version", "payment_id", "updated_at_ms"}, 0,
      n, [&](int64_t i, std::vector<Value>& row) {
        PaymentFacts f = FactsOf(i, order);
        row = {f.order_no, f.user_id, std::string("SKU-1"), int64_t{1}, f.amount_cents,
               std::string(payments::kPaid), int64_t{1}, f.payment_id, kSeedTimeMs};
      }));
  IDEM_RETURN_IF_ERROR(InsertRows(store, "pay_account_flows",
                                  {"biz_no", "type", "user_id", "amount_cents", "created_at_ms"}, 0, n,
                                  [&](int64_t i, std::vector<Value>& row) {
                                    PaymentFacts f = FactsOf(i, order);
                                    row = {f.payment_id, std::string(payments::kFlowPay), f.user_id,
                                           -f.amount_cents, kSeedTimeMs};
                                  }));
  IDEM_RETURN_IF_ERROR(InsertRows(store, "pay_points", {"payment_id", "scene", "user_id", "points", "created_at_ms"},
                                  0, n, [&](int64_t i, std::vector<Value>& row) {
                                    PaymentFacts f = FactsOf(i, order);
                                    row = {f.payment_id, std::string(payments::kScenePay), f.user_id,
                                           f.amount_cents / 100, kSeedTimeMs};
                                  }));
  IDEM_RETURN_IF_ERROR(InsertRows(
      store, "pay_notifications", {"event_key", "idempotency_key", "order_no", "kind", "created_at_ms"}, 0, n,
      [&](int64_t i, std::vector<Value>& row) {
        PaymentFacts f = FactsOf(i, order);
        const std::string idempotency_key = std::string(payments::kTopicPaySuccess) + ":" + f.payment_id;
        row = {payments::NoticeKey("PAY_SUCCESS", f.payment_id), idempotency_key, f.order_no,
               std::string("PAY_SUCCESS"), kSeedTimeMs};
      }));
  if (!plan.history_records) return Status::OK();
  // The records exactly as the pipeline would have left them: key and
  // fingerprint derived by the same code from the same payload.
  const HandlerSpec spec = payments::PaySuccessHandler(payments::ServiceOptions{});
  Status derive_error;
  IDEM_RETURN_IF_ERROR(InsertRows(
      store, "idem_records",
      {"consumer_group", record_sql::KeyColumn(store.Dialect()), "status", "fingerprint", "message_id", "attempts", "duplicates", "lease_until_ms",
       "first_seen_ms", "last_seen_ms", "last_error", "result_summary"},
      0, n, [&](int64_t i, std::vector<Value>& row) {
        Message m;
        m.topic = spec.topic;
        m.payload = PayloadOf(FactsOf(i, order));
        auto id = DeriveIdentity(m, spec);
        if (!id.ok() && derive_error.ok()) derive_error = id.status();
        MessageIdentity identity = id.ok() ? *id : MessageIdentity{};
        row = {plan.consumer_group, identity.key, std::string("SUCCEEDED"), identity.fingerprint,
               "m-" + std::to_string(i), int64_t{1}, int64_t{0}, int64_t{0}, kSeedTimeMs, kSeedTimeMs,
               std::string(), std::string("history")};
      }));
  return derive_error;
}

}  // namespace

Status SeedStore(Store& store, const SeedPlan& plan) {
  if (!plan.fresh_store) IDEM_RETURN_IF_ERROR(DropPaymentTables(store));
  IDEM_RETURN_IF_ERROR(payments::CreateSchema(store, payments::SchemaVariant::kGuarded));
  IDEM_RETURN_IF_ERROR(InsertRows(store, "pay_accounts", {"user_id", "balance_cents", "opening_cents"}, 0, kAccounts,
                                  [](int64_t i, std::vector<Value>& row) {
                                    // The same user id FactsOf gives payment i (i < kAccounts).
                                    row = {FactsOf(i, KeyOrder::kSequential).user_id, kOpeningCents, kOpeningCents};
                                  }));
  IDEM_RETURN_IF_ERROR(InsertRows(store, "pay_stock", {"sku", "quantity", "version"}, 0, 1,
                                  [](int64_t, std::vector<Value>& row) {
                                    row = {std::string("SKU-1"), int64_t{1'000'000'000}, int64_t{0}};
                                  }));
  if (plan.history > 0) IDEM_RETURN_IF_ERROR(SeedHistory(store, plan));
  const KeyOrder order = plan.order;
  IDEM_RETURN_IF_ERROR(InsertRows(store, "pay_orders",
                                  {"order_no", "user_id", "sku", "quantity", "amount_cents", "status"}, plan.history,
                                  plan.new_orders, [&](int64_t i, std::vector<Value>& row) {
                                    PaymentFacts f = FactsOf(i, order);
                                    row = {f.order_no, f.user_id, std::string("SKU-1"), int64_t{1}, f.amount_cents,
                                           std::string(payments::kWaitPay)};
                                  }));
  // A PostgreSQL table that has been in use has statistics (autovacuum
  // analyses it); one filled a second ago has none, and the planner may then
  // scan a million records for every claim. SQLite has no automatic ANALYZE, so
  // its tables are measured as most deployments leave them: without.
  if (!store.Dialect().RefreshStatistics().empty())
    IDEM_RETURN_IF_ERROR(store.ExecScript(store.Dialect().RefreshStatistics()));
  return Status::OK();
}

}  // namespace idem::bench
