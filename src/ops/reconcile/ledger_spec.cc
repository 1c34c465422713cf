#include "ops/reconcile/ledger_spec.h"

#include <algorithm>
#include <set>

#include "guards/sql_identifier.h"

namespace idem::reconcile {
namespace {

Status Identifier(const std::string& name, const char* what) {
  if (guards::IsSqlIdentifier(name)) return Status::OK();
  return Status::InvalidArgument(std::string(what) + " '" + name +
                                 "' is not a plain SQL identifier (letters, digits and '_', at most 63 bytes, "
                                 "not starting with a digit): give the name as the database spells it");
}

Status Required(const std::string& value, const char* what, const char* flag, const char* toml_key) {
  if (!value.empty()) return Status::OK();
  return Status::InvalidArgument(std::string("the ledger's ") + what + " is missing: give " + flag + " or ledger." +
                                 toml_key + " in the [reconcile] section");
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

Status Validate(const LedgerSpec& s) {
  IDEM_RETURN_IF_ERROR(Required(s.table, "table", "--table", "table"));
  if (s.key_columns.empty())
    return Status::InvalidArgument(
        "the ledger's business-key columns are missing: give --key-columns biz_no[,type] or ledger.key_columns");
  IDEM_RETURN_IF_ERROR(Required(s.amount_column, "amount column", "--amount-column", "amount_column"));
  IDEM_RETURN_IF_ERROR(Required(s.account_column, "account column", "--account-column", "account_column"));
  IDEM_RETURN_IF_ERROR(Identifier(s.table, "ledger table"));
  std::set<std::string> seen;
  for (const std::string& k : s.key_columns) {
    IDEM_RETURN_IF_ERROR(Identifier(k, "key column"));
    if (!seen.insert(k).second) return Status::InvalidArgument("key column '" + k + "' is listed twice");
  }
  IDEM_RETURN_IF_ERROR(Identifier(s.amount_column, "amount column"));
  IDEM_RETURN_IF_ERROR(Identifier(s.account_column, "account column"));
  if (!s.time_column.empty()) IDEM_RETURN_IF_ERROR(Identifier(s.time_column, "time column"));
  // The columns a reversal always writes itself.
  std::vector<std::string> written = s.key_columns;
  written.insert(written.end(), {s.amount_column, s.account_column});
  if (!s.time_column.empty()) written.push_back(s.time_column);
  for (const std::string& c : s.copy_columns) {
    IDEM_RETURN_IF_ERROR(Identifier(c, "copied column"));
    if (Contains(written, c))
      return Status::InvalidArgument("copied column '" + c +
                                     "' is one the reversal writes itself (key, amount, account or time): drop it "
                                     "from the copied columns");
  }
  for (const auto& [column, value] : s.where) {
    IDEM_RETURN_IF_ERROR(Identifier(column, "filter column"));
    // A reversal copies the filtered columns from its original, so it stays
    // inside the filter — except for these, which it writes differently.
    if (column == s.key_columns.front() || column == s.amount_column || column == s.time_column)
      return Status::InvalidArgument("the filter on '" + column +
                                     "' would hide the reversals (they get a new key, amount and time): filter on "
                                     "another column, such as the entry type");
  }
  const int balance_parts = !s.balance_table.empty() + !s.balance_key_column.empty() + !s.balance_column.empty();
  if (balance_parts != 0 && balance_parts != 3)
    return Status::InvalidArgument(
        "the balance needs all three of --balance-table, --balance-key-column and --balance-column "
        "(balance.table, balance.key_column, balance.column), or none of them");
  if (balance_parts == 3) {
    IDEM_RETURN_IF_ERROR(Identifier(s.balance_table, "balance table"));
    IDEM_RETURN_IF_ERROR(Identifier(s.balance_key_column, "balance key column"));
    IDEM_RETURN_IF_ERROR(Identifier(s.balance_column, "balance column"));
  }
  if (s.amount_decimals < 0 || s.amount_decimals > 9)
    return Status::InvalidArgument("amount decimals must be between 0 and 9 (2 for cents), not " +
                                   std::to_string(s.amount_decimals));
  if (s.reversal_marker.empty() || s.reversal_marker.size() > 32)
    return Status::InvalidArgument("the reversal marker must be 1 to 32 characters (default ':reversal:')");
  IDEM_RETURN_IF_ERROR(Identifier(s.audit_table, "audit table"));
  IDEM_RETURN_IF_ERROR(Identifier(s.decisions_table, "decisions table"));
  return Status::OK();
}

std::string Describe(const LedgerSpec& s) {
  std::string out = s.table + " (key ";
  for (size_t i = 0; i < s.key_columns.size(); ++i) out += (i ? ", " : "") + s.key_columns[i];
  for (size_t i = 0; i < s.where.size(); ++i)
    out += (i ? " and " : "; where ") + s.where[i].first + " = " + s.where[i].second;
  return out + ")";
}

}  // namespace idem::reconcile
