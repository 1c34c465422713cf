// The payments invariants read from the service's tables alone, with no oracle:
// each effect row at most once per business key, and every balance equal to
// its opening plus its ledger. They hold for every correct run whatever order
// the broker chose, so the demo's measurements (measure.h) and the simulator's
// payments checker both build on them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "demo/workload.h"
#include "idem/store.h"

namespace idem::demo {

// Rows per business key of one effect table.
using EffectCounts = std::map<std::string, int64_t>;
// The key of a two-column business identity in EffectCounts, e.g. (biz_no, type).
std::string EffectKey(const std::string& a, const std::string& b);
// `key` for a person: its columns joined with '/'.
std::string ShowEffectKey(const std::string& key);

struct EffectRows {
  EffectCounts flows;    // pay_account_flows by EffectKey(biz_no, type)
  EffectCounts points;   // pay_points by EffectKey(payment_id, scene)
  EffectCounts moves;    // pay_stock_moves by order_no
  EffectCounts notices;  // pay_notifications by event_key

  int64_t Total() const;          // rows in all four tables
  int64_t Duplicates() const;     // rows beyond the first of their key, in all four
  int64_t DoubleCharges() const;  // payments with more than one PAY_DEDUCT ledger row
  // Whether `e`'s effect row is there; an event whose effect is a state only
  // (EffectKind::kFinished) counts as applied: the state checks judge it.
  bool Applied(const BusinessEvent& e) const;
};

struct AccountBalance {
  std::string user_id;
  int64_t balance_cents = 0;
  int64_t opening_cents = 0;
  int64_t flows_cents = 0;  // the sum of the account's ledger rows
  bool Balanced() const { return balance_cents == opening_cents + flows_cents; }
};

// Each read runs in a transaction of its own that is rolled back.
Result<EffectRows> ReadEffectRows(Store& store);
Result<std::vector<AccountBalance>> ReadAccountBalances(Store& store);

}  // namespace idem::demo
