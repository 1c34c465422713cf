// The data a bench run starts from, written before the clock starts:
//   - the payments schema (with every UNIQUE constraint: the fixed service);
//   - kAccounts accounts with more money than any run spends;
//   - one WAIT_PAY order for each payment the run will see;
//   - optionally a history of `history` payments already applied — orders PAID,
//     ledger, points and notices, and (for guarded variants) their SUCCEEDED
//     consumption records — to measure a table that is not empty.
// Rows go in as multi-row INSERTs with bound values (kRowsPerStatement a
// statement), the same SQL on every store and fast enough for millions of rows.
#pragma once

#include <cstdint>
#include <string>

#include "harness/pay_stream.h"
#include "idem/store.h"

namespace idem::bench {

inline constexpr int64_t kRowsPerStatement = 250;

struct SeedPlan {
  KeyOrder order = KeyOrder::kSequential;
  int64_t history = 0;     // payments 0 … history-1, already applied
  int64_t new_orders = 0;  // payments history … history+new_orders-1, orders WAIT_PAY
  bool history_records = false;  // also write the history's consumption records
  std::string consumer_group;    // the group those records belong to
  bool fresh_store = false;      // a new, empty file: nothing to clear
};

// Unless the store is fresh, the payments tables are dropped and created again
// first: a bench store URL must name a scratch database.
Status SeedStore(Store& store, const SeedPlan& plan);

}  // namespace idem::bench
