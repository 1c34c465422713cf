#include "ops/reconcile/ledger_sql.h"

#include <algorithm>
#include <vector>

#include "guards/sql_identifier.h"
#include "store/schema/tables.h"

namespace idem::reconcile {
namespace {

std::string List(const SqlDialect& d, const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + QuoteIdentifier(d, n);
  return out;
}

// `"a" = ? AND "b" = ?`
std::string Equalities(const SqlDialect& d, const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : " AND ") + QuoteIdentifier(d, n) + " = ?";
  return out;
}

}  // namespace

std::string LikePattern(const std::string& marker) {
  std::string out = "%";
  for (char c : marker) {
    if (c == '%' || c == '_' || c == '!') out += '!';
    out += c;
  }
  return out + "%";
}

std::string QuoteIdentifier(const SqlDialect& dialect, const std::string& name) {
  return dialect.QuoteIdentifier(name);
}

LedgerSql::LedgerSql(const LedgerSpec& s, const SqlDialect& dialect) {
  const std::string table = QuoteIdentifier(dialect, s.table);
  std::vector<std::string> filter;
  for (const auto& w : s.where) filter.push_back(w.first);
  std::vector<std::string> copied = s.copy_columns;
  for (const std::string& f : filter)
    if (f != s.account_column && std::find(s.key_columns.begin(), s.key_columns.end(), f) == s.key_columns.end() &&
        std::find(copied.begin(), copied.end(), f) == copied.end())
      copied.push_back(f);

  std::vector<std::string> read = s.key_columns;
  read.push_back(s.amount_column);
  read.push_back(s.account_column);
  if (!s.time_column.empty()) read.push_back(s.time_column);
  select_entries = "SELECT " + List(dialect, read) + " FROM " + table +
                   (filter.empty() ? "" : " WHERE " + Equalities(dialect, filter)) + " ORDER BY " +
                   List(dialect, s.key_columns);
  count_entries = "SELECT COUNT(*) FROM " + table + (filter.empty() ? "" : " WHERE " + Equalities(dialect, filter));
  const std::string select = "SELECT " + List(dialect, read) + " FROM " + table + " WHERE " +
                             (filter.empty() ? "" : Equalities(dialect, filter) + " AND ");
  const std::string first = QuoteIdentifier(dialect, s.key_columns.front());
  const std::string unmarked = first + " NOT LIKE ? ESCAPE '!'";
  const std::string keys = List(dialect, s.key_columns);
  select_marked = select + first + " LIKE ? ESCAPE '!'";
  select_repeated = select + unmarked + " AND (" + keys + ") IN (SELECT " + keys + " FROM " + table + " WHERE " +
                    (filter.empty() ? "" : Equalities(dialect, filter) + " AND ") + unmarked + " GROUP BY " + keys +
                    " HAVING COUNT(*) > 1)";
  if (!s.time_column.empty()) {
    const std::string time = QuoteIdentifier(dialect, s.time_column);
    select_repeated_outside = select_repeated + " AND (" + time + " < ? OR " + time + " >= ? OR " + time + " IS NULL)";
    select_in_period = select + unmarked + " AND " + time + " >= ? AND " + time + " < ?";
  }

  std::vector<std::string> key_and_filter = s.key_columns;
  key_and_filter.insert(key_and_filter.end(), filter.begin(), filter.end());
  if (!copied.empty())
    select_copied = "SELECT " + List(dialect, copied) + " FROM " + table + " WHERE " +
                    Equalities(dialect, key_and_filter) + " LIMIT 1";
  count_key = "SELECT COUNT(*) FROM " + table + " WHERE " + Equalities(dialect, s.key_columns);

  std::vector<std::string> written = read;
  written.insert(written.end(), copied.begin(), copied.end());
  insert_reversal = "INSERT INTO " + table + " (" + List(dialect, written) + ") VALUES (" +
                    guards::ParameterMarkers(written.size()) + ")";

  if (s.HasBalance()) {
    const std::string balance = QuoteIdentifier(dialect, s.balance_table);
    const std::string column = QuoteIdentifier(dialect, s.balance_column);
    const std::string where = " WHERE " + QuoteIdentifier(dialect, s.balance_key_column) + " = ?";
    lock_balance =
        "SELECT " + column + " FROM " + balance + where + std::string(dialect.ForUpdate());
    update_balance = "UPDATE " + balance + " SET " + column + " = " + column + " + ?" + where;
  }

  const std::string audit = QuoteIdentifier(dialect, s.audit_table);
  create_audit = schema::ReconcileAuditTableDdl(dialect, s.audit_table);
  insert_audit = "INSERT INTO " + audit +
                 " (at_ms, operator, action, ledger_table, business_key, reversal_key, account, amount, reason) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
}

}  // namespace idem::reconcile
