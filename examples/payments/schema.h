// The payments schema and its starting data.
//
//   pay_accounts       user_id → balance_cents, opening_cents
//   pay_orders         order_no → user, sku, quantity, amount, status (state machine), version
//   pay_account_flows  the ledger: biz_no, type, user, amount; UNIQUE (biz_no, type)  
//   pay_points         points granted; UNIQUE (payment_id, scene)
//   pay_stock          sku → quantity, version                                         
//   pay_stock_moves    one stock decrement per order; UNIQUE (order_no)
//   pay_notifications  one notice per event; UNIQUE (event_key)
//
// Portable DDL (SQLite, PostgreSQL, MySQL/MariaDB): VARCHAR keys, BIGINT cents.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "idem/status.h"
#include "idem/store.h"

namespace idem::payments {

enum class SchemaVariant {
  kGuarded,   // with every UNIQUE constraint: the fixed service
  kIncident,  // without them, as the incident's tables were: nothing in the database stops a second row
};

// Creates the tables if they are missing.
Status CreateSchema(Store& store, SchemaVariant variant);

struct AccountSeed {
  std::string user_id;
  int64_t opening_cents = 0;
};
struct SkuSeed {
  std::string sku;
  int64_t price_cents = 0;
  int64_t stock = 0;
};
struct OrderSeed {
  std::string order_no, user_id, sku;
  int64_t quantity = 0;
  int64_t amount_cents = 0;
};

// Inserts accounts (balance = opening), stock and orders in WAIT_PAY, in one transaction.
Status SeedData(Store& store, const std::vector<AccountSeed>& accounts, const std::vector<SkuSeed>& skus,
                const std::vector<OrderSeed>& orders);

}  // namespace idem::payments
