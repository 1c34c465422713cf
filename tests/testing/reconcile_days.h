// Three days of the daily reconciliation job of docs/operations.md ("The
// daily job"), run as `idem reconcile` on one store: each day the ledger gets
// that day's entries, the bank's statement of the day arrives, the dry run
// reports and --apply repairs. After every run the ledger rows, reversals,
// balances and recorded decisions are checked with SQL.
//
//   day 1  the bank charged T010 twice (held), the ledger took T011 twice
//          (reversed), T012 at 23:50 is not on the day's statement yet
//   day 2  the bank books T012 after midnight, T020 is a new ledger double;
//          T010, held on day 1, is not on this statement and stays held
//   day 3  a clean day
#pragma once

#include <string>

#include "idem/store.h"

namespace idem::testing {

// `store` is an empty database that `url` names for the idem binary at
// `idem_path`. Reports gtest failures; prints each run's report.
void RunThreeDaysOfReconciliation(Store& store, const std::string& url, const std::string& idem_path);

}  // namespace idem::testing
