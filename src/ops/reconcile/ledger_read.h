// Reads the ledger's entries (inside the filter) through a store transaction.
#pragma once

#include <vector>

#include "idem/sql.h"
#include "ops/reconcile/findings.h"
#include "ops/reconcile/ledger_sql.h"

namespace idem::reconcile {

// Keys and accounts come back as text (an integer column reads as its
// digits); an amount that is not an integer is InvalidArgument naming the key.
Result<std::vector<LedgerEntry>> ReadEntries(SqlTx& tx, const LedgerSpec& spec, const LedgerSql& sql);

}  // namespace idem::reconcile
