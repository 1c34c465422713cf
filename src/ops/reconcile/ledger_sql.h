// The statements reconciliation runs, built once from a validated LedgerSpec.
// Names are spliced only after Validate() accepted them as plain identifiers,
// and are quoted as well (by the store's dialect), so
// a name that is a keyword (`type`, `user`) still works. Every value is a bound
// parameter.
#pragma once

#include <string>

#include "idem/sql.h"
#include "ops/reconcile/ledger_spec.h"

namespace idem::reconcile {

// The name quoted by the dialect ("name", `name`). REQUIRES: the name passed Validate().
std::string QuoteIdentifier(const SqlDialect& dialect, const std::string& name);

// LIKE pattern (ESCAPE '!') matching text that contains `marker`.
std::string LikePattern(const std::string& marker);

struct LedgerSql {
  // REQUIRES: Validate(spec) is OK.
  LedgerSql(const LedgerSpec& spec, const SqlDialect& dialect);

  // The reads below return the same columns: key columns…, amount, account[, time].
  // Every entry inside the filter. Params: where values.
  std::string select_entries;
  // The rest read only what reconciliation needs, so a daily run does not load
  // years of ledger: `pattern` is LikePattern(marker), "unmarked" entries are
  // those whose first key column does not match it.
  // Entries that may be reversals. Params: where…, pattern.
  std::string select_marked;
  // Unmarked entries of keys applied more than once. Params: where…, pattern, where…, pattern.
  std::string select_repeated;
  // The same, outside [from, until) only. Params: as above, then from, until.
  std::string select_repeated_outside;
  // Unmarked entries in [from, until). Params: where…, pattern, from, until. Needs the time column.
  std::string select_in_period;
  // COUNT(*) inside the filter. Params: where values.
  std::string count_entries;
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
