#include "payments/schema.h"

#include "payments/order_states.h"

namespace idem::payments {
namespace {

// `unique` is the constraint clause, or "" for the incident's schema.
std::string Ddl(bool guarded) {
  auto unique = [guarded](const char* name, const char* columns) {
    return guarded ? std::string(",\n  CONSTRAINT ") + name + " UNIQUE (" + columns + ")" : std::string();
  };
  return R"sql(
CREATE TABLE IF NOT EXISTS pay_accounts (
  user_id       VARCHAR(64) NOT NULL PRIMARY KEY,
  balance_cents BIGINT NOT NULL,
  opening_cents BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS pay_orders (
  order_no      VARCHAR(64) NOT NULL PRIMARY KEY,
  user_id       VARCHAR(64) NOT NULL,
  sku           VARCHAR(64) NOT NULL,
  quantity      BIGINT NOT NULL,
  amount_cents  BIGINT NOT NULL,
  status        VARCHAR(16) NOT NULL,
  version       BIGINT NOT NULL DEFAULT 0,
  payment_id    VARCHAR(64),
  updated_at_ms BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS pay_account_flows (
  biz_no        VARCHAR(64) NOT NULL,
  type          VARCHAR(16) NOT NULL,
  user_id       VARCHAR(64) NOT NULL,
  amount_cents  BIGINT NOT NULL,
  created_at_ms BIGINT NOT NULL)sql" +
         unique("uk_flow_biz_no_type", "biz_no, type") + R"sql(
);
CREATE TABLE IF NOT EXISTS pay_points (
  payment_id    VARCHAR(64) NOT NULL,
  scene         VARCHAR(32) NOT NULL,
  user_id       VARCHAR(64) NOT NULL,
  points        BIGINT NOT NULL,
  created_at_ms BIGINT NOT NULL)sql" +
         unique("uk_points_payment_scene", "payment_id, scene") + R"sql(
);
CREATE TABLE IF NOT EXISTS pay_stock (
  sku      VARCHAR(64) NOT NULL PRIMARY KEY,
  quantity BIGINT NOT NULL,
  version  BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS pay_stock_moves (
  order_no      VARCHAR(64) NOT NULL,
  sku           VARCHAR(64) NOT NULL,
  quantity      BIGINT NOT NULL,
  created_at_ms BIGINT NOT NULL)sql" +
         unique("uk_stock_move_order", "order_no") + R"sql(
);
CREATE TABLE IF NOT EXISTS pay_notifications (
  event_key       VARCHAR(128) NOT NULL,
  idempotency_key VARCHAR(600) NOT NULL,
  order_no        VARCHAR(64) NOT NULL,
  kind            VARCHAR(16) NOT NULL,
  created_at_ms   BIGINT NOT NULL)sql" +
         unique("uk_notification_event", "event_key") + R"sql(
);
)sql";
}

}  // namespace

Status CreateSchema(Store& store, SchemaVariant variant) {
  return store.ExecScript(Ddl(variant == SchemaVariant::kGuarded));
}

Status SeedData(Store& store, const std::vector<AccountSeed>& accounts, const std::vector<SkuSeed>& skus,
                const std::vector<OrderSeed>& orders) {
  auto tx_or = store.Begin();
  if (!tx_or.ok()) return tx_or.status();
  StoreTx& tx = **tx_or;
  for (const AccountSeed& a : accounts)
    IDEM_RETURN_IF_ERROR(tx.Exec("INSERT INTO pay_accounts (user_id, balance_cents, opening_cents) VALUES (?, ?, ?)",
                                 {a.user_id, a.opening_cents, a.opening_cents})
                             .status());
  for (const SkuSeed& s : skus)
    IDEM_RETURN_IF_ERROR(
        tx.Exec("INSERT INTO pay_stock (sku, quantity, version) VALUES (?, ?, 0)", {s.sku, s.stock}).status());
  for (const OrderSeed& o : orders)
    IDEM_RETURN_IF_ERROR(tx.Exec("INSERT INTO pay_orders (order_no, user_id, sku, quantity, amount_cents, status) "
                                 "VALUES (?, ?, ?, ?, ?, ?)",
                                 {o.order_no, o.user_id, o.sku, o.quantity, o.amount_cents, std::string(kWaitPay)})
                             .status());
  return tx.Commit();
}

}  // namespace idem::payments
