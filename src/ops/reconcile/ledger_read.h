// Reads the ledger's entries (inside the filter) through a store transaction:
// only what reconciliation needs, so a daily run on years of ledger reads the
// repeated keys, the reversals and the statement's period, not everything.
#pragma once

#include <cstdint>
#include <vector>

#include "idem/sql.h"
#include "ops/reconcile/findings.h"
#include "ops/reconcile/ledger_sql.h"
#include "ops/reconcile/period.h"

namespace idem::reconcile {

struct LedgerRead {
  // Every entry of a key applied more than once, every entry that may be a
  // reversal, and — for a statement — every entry in its period (all of them
  // without a period). Each entry once.
  std::vector<LedgerEntry> entries;
  int64_t total = 0;  // entries inside the filter, read or not
};

// Keys and accounts come back as text (an integer column reads as its
// digits); an amount that does not fit the amount unit is InvalidArgument
// naming the key. REQUIRES: a period other than all time has a time column.
Result<LedgerRead> ReadLedger(SqlTx& tx, const LedgerSpec& spec, const LedgerSql& sql, bool for_statement,
                              const Period& period);

}  // namespace idem::reconcile
