// The statements reconciliation runs, built once from a validated LedgerSpec.
// Names are spliced only after Validate() accepted them as plain identifiers,
// and are quoted as well (both dialects quote with "…"), so a name that is a
// keyword (`type`, `user`) still works. Every value is a bound parameter.
#pragma once

#include <string>

#include "idem/sql.h"
#include "ops/reconcile/ledger_spec.h"

namespace idem::reconcile {

// "name" with any '"' doubled. REQUIRES: the name passed Validate().
std::string QuoteIdentifier(const std::string& name);

struct LedgerSql {
  // REQUIRES: Validate(spec) is OK.
  LedgerSql(const LedgerSpec& spec, Dialect dialect);

  // Columns: key columns…, amount, account[, time]. Params: the where values.
  std::string select_entries;
  // One row of the copied columns (copy_columns, then where columns) of an
  // entry. Params: key values…, where values. Empty when nothing is copied.
  std::string select_copied;
  // COUNT(*) of entries with a key (no filter). Params: key values….
  std::string count_key;
  // Params: key values…, amount, account[, time], copied values….
  std::string insert_reversal;
  // Locks the account's balance row until commit (PostgreSQL: FOR UPDATE;
  // SQLite already holds the database's write lock). Params: account.
  std::string lock_balance;
  // Params: delta, account. Changes one row.
  std::string update_balance;
  std::string create_audit;  // DDL, IF NOT EXISTS
  // Params: at_ms, operator, action, ledger_table, business_key, reversal_key,
  // account, amount, reason.
  std::string insert_audit;
};

}  // namespace idem::reconcile
