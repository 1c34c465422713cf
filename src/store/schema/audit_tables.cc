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

// One row per decision `idem reconcile --apply` made about an extra copy of a
// key, never updated or deleted: the latest row of a copy is in force, so a
// copy held stays held on later runs until a person releases it.
std::string ReconcileDecisionsTableDdl(const SqlDialect& d, std::string_view table) {
  return "CREATE TABLE IF NOT EXISTS " + d.QuoteIdentifier(table) + " (\n"
         "  decided_at_ms    " + std::string(d.BigInt()) + " NOT NULL,\n"
         "  operator         " + d.BoundedText(128) + " NOT NULL,\n"
         "  ledger_table     " + d.BoundedText(64) + " NOT NULL,\n"
         "  business_key     " + d.BoundedText(600) + " NOT NULL,\n"
         "  copy_ordinal     INT NOT NULL,\n"
         "  decision         " + d.BoundedText(16) + " NOT NULL,\n"
         "  bank_movements   INT NOT NULL,\n"
         "  statement        " + d.BoundedText(600) + " NOT NULL,\n"
         "  statement_period " + d.BoundedText(128) + " NOT NULL,\n"
         "  evidence         " + std::string(d.LongText()) + " NOT NULL\n"
         ")" + d.TableOptions(false) + ";\n";
}

std::string DefaultReconcileDecisionsTableDdl(const SqlDialect& d) {
  return ReconcileDecisionsTableDdl(d, "idem_reconcile_decisions");
}

}  // namespace idem::schema
