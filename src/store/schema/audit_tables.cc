#include "store/schema/tables.h"

namespace idem::schema {

std::string AuditTableDdl(const SqlDialect& d) {
  const std::string ms = std::string(d.BigInt());
  return "CREATE TABLE IF NOT EXISTS idem_audit (\n"
         "  id               " + std::string(d.AutoIncrementId()) + ",\n"
         "  at_ms            " + ms + " NOT NULL,\n"
         "  operator         " + d.BoundedText(255) + " NOT NULL,\n"
         "  authenticated_by " + d.BoundedText(255) + " NOT NULL,\n"
         "  action           " + d.BoundedText(16) + " NOT NULL,\n"
         "  broker           " + d.BoundedText(1024) + " NOT NULL,\n"
         "  dead_letter_ids  " + std::string(d.LongText()) + " NOT NULL,\n"
         "  changed          " + ms + " NOT NULL,\n"
         "  outcome          " + std::string(d.LongText()) + " NOT NULL\n"
         ")" + d.TableOptions(false) + ";\n";
}

// One reversal per (ledger, reversal key), enforced by the database too: two
// operators applying at once cannot both reverse the same copy.
std::string ReconcileAuditTableDdl(const SqlDialect& d, std::string_view table) {
  const std::string name = d.QuoteIdentifier(table);
  return "CREATE TABLE IF NOT EXISTS " + name + " (\n"
         "  at_ms        " + std::string(d.BigInt()) + " NOT NULL,\n"
         "  operator     " + d.BoundedText(128) + " NOT NULL,\n"
         "  action       " + d.BoundedText(32) + " NOT NULL,\n"
         "  ledger_table " + d.BoundedText(64) + " NOT NULL,\n"
         "  business_key " + d.BoundedText(600) + " NOT NULL,\n"
         "  reversal_key " + d.BoundedText(600) + " NOT NULL,\n"
         "  account      " + d.BoundedText(128) + " NOT NULL,\n"
         "  amount       " + std::string(d.BigInt()) + " NOT NULL,\n"
         "  reason       " + std::string(d.LongText()) + " NOT NULL,\n"
         "  CONSTRAINT " + d.QuoteIdentifier(std::string(table) + "_once") + " UNIQUE (ledger_table, reversal_key)\n"
         ")" + d.TableOptions(false) + ";\n";
}

std::string DefaultReconcileAuditTableDdl(const SqlDialect& d) {
  return ReconcileAuditTableDdl(d, "idem_reconcile_audit");
}

}  // namespace idem::schema
