// The payments ledger after the double-charge incident, for the
// reconciliation tests on every store: the payments example's tables without
// their unique constraints (as the incident's were), P20260928001 (199.00,
// user 10086) charged twice 17 s apart, and a bank statement that disagrees
// with the ledger in each direction.
#pragma once

#include <cstdint>
#include <string>

#include "idem/status.h"
#include "idem/store.h"

namespace idem::testing {

inline constexpr int64_t kIncidentOpening10086 = 100'000;
// What the balances are after the incident (10086 paid 199.00 twice and 50.00;
// 10010 topped up 200.00 and paid 10.00), and what 10086's should be.
inline constexpr int64_t kIncidentBalance10086 = 100'000 - 2 * 19'900 - 5'000;
inline constexpr int64_t kRestoredBalance10086 = 100'000 - 19'900 - 5'000;
inline constexpr int64_t kIncidentBalance10010 = 50'000 + 20'000 - 1'000;
inline constexpr int64_t kIncidentFlows = 5;

// Creates the payments schema (incident variant) and writes the entries.
Status SeedIncidentLedger(Store& store);

// The bank's view: P20260928001 charged once (199.00), P20260928002 at 55.00
// (the ledger has 50.00), P20260928004 unknown to the ledger; P20260928003
// (10.00) is missing at the bank.
std::string IncidentStatementCsv();

// A [reconcile] section for the payments ledger (pay charges only).
std::string IncidentLedgerToml(const std::string& store_url);

}  // namespace idem::testing
