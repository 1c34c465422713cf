#include "ops/reconcile/decisions_table.h"

#include "ops/reconcile/ledger_sql.h"
#include "store/schema/tables.h"

namespace idem::reconcile {

DecisionsSql::DecisionsSql(const SqlDialect& dialect, const std::string& table) {
  const std::string t = QuoteIdentifier(dialect, table);
  create = schema::ReconcileDecisionsTableDdl(dialect, table);
  insert = "INSERT INTO " + t +
           " (decided_at_ms, operator, ledger_table, business_key, copy_ordinal, decision, bank_movements, "
           "statement, statement_period, evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  select_holds = "SELECT decided_at_ms, operator, business_key, copy_ordinal, decision, evidence FROM " + t +
                 " WHERE ledger_table = ? AND decision IN ('held', 'released') ORDER BY decided_at_ms";
}

}  // namespace idem::reconcile
