#include "ops/reconcile/decisions_table.h"

#include "ops/reconcile/ledger_sql.h"

namespace idem::reconcile {

DecisionsSql::DecisionsSql(Dialect dialect, const std::string& table) {
  const std::string t = QuoteIdentifier(dialect, table);
  create = "CREATE TABLE IF NOT EXISTS " + t +
           " (decided_at_ms BIGINT NOT NULL, operator VARCHAR(128) NOT NULL, ledger_table VARCHAR(64) NOT NULL, "
           "business_key VARCHAR(600) NOT NULL, copy_ordinal INT NOT NULL, decision VARCHAR(16) NOT NULL, "
           "bank_movements INT NOT NULL, statement VARCHAR(600) NOT NULL, statement_period VARCHAR(128) NOT NULL, "
           "evidence TEXT NOT NULL)";
  insert = "INSERT INTO " + t +
           " (decided_at_ms, operator, ledger_table, business_key, copy_ordinal, decision, bank_movements, "
           "statement, statement_period, evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  select_holds = "SELECT decided_at_ms, operator, business_key, copy_ordinal, decision, evidence FROM " + t +
                 " WHERE ledger_table = ? AND decision IN ('held', 'released') ORDER BY decided_at_ms";
}

}  // namespace idem::reconcile
