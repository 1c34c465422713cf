// The table where `idem reconcile --apply` remembers what it decided about
// each extra copy of a business key, and on what evidence: one row per
// decision, never updated or deleted.
//
//   decided_at_ms     when the run applied
//   operator          who ran it, as established (see apply_reversals.h Actor)
//   ledger_table      the ledger the copy is in
//   business_key      KeyText of the key: P20260928001/PAY_DEDUCT
//   copy_ordinal      2 for the key's second application
//   decision          held | reversed | released
//   bank_movements    how often the statement showed the key's movement, -1 without one
//   statement         the statement file the evidence came from, "" without one
//   statement_period  the period it covered, "" for all time
//   evidence          the sentence a person reads: why it was decided so
//
// The latest decision of a copy is in force: a copy held stays held on later
// runs until a person releases it (--release-hold KEY).
#pragma once

#include <string>

#include "idem/sql.h"

namespace idem::reconcile {

struct DecisionsSql {
  DecisionsSql(const SqlDialect& dialect, const std::string& table);

  std::string create;  // DDL, IF NOT EXISTS (written in the schema module, store/schema/tables.h)
  // Params: decided_at_ms, operator, ledger_table, business_key, copy_ordinal,
  // decision, bank_movements, statement, statement_period, evidence.
  std::string insert;
  // The holds and releases of one ledger, oldest first: decided_at_ms,
  // operator, business_key, copy_ordinal, decision, evidence. Params: ledger_table.
  std::string select_holds;
};

}  // namespace idem::reconcile
