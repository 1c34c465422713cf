#include "ops/reconcile/ledger_read.h"

#include <cmath>

#include "ops/reconcile/amount.h"
#include "ops/reconcile/rewrap_status.h"

namespace idem::reconcile {
namespace {

// The column's value in minor units, exactly. Decimal columns come back as
// text, as whole numbers or (PostgreSQL NUMERIC with a fraction) as doubles.
Result<int64_t> MinorUnits(const LedgerSpec& spec, const Value& v) {
  if (spec.amount_unit == AmountUnit::kMinor) {
    if (const int64_t* i = std::get_if<int64_t>(&v)) return *i;
    return Status::InvalidArgument("amount '" + AsText(v) +
                                   "' is not an integer: the ledger's amounts are in minor units (cents); for a "
                                   "decimal column set amount_unit = \"major\" (--amount-unit major)");
  }
  if (const int64_t* i = std::get_if<int64_t>(&v)) return ParseAmount(std::to_string(*i), spec.amount_decimals);
  if (const std::string* s = std::get_if<std::string>(&v)) return ParseAmount(*s, spec.amount_decimals);
  if (const double* d = std::get_if<double>(&v)) {
    const double scaled = *d * std::pow(10.0, spec.amount_decimals);
    const double rounded = std::nearbyint(scaled);
    if (std::fabs(rounded) < 9e15 && std::fabs(scaled - rounded) < 1e-6) return static_cast<int64_t>(rounded);
    return Status::InvalidArgument("amount " + std::to_string(*d) + " has more than " +
                                   std::to_string(spec.amount_decimals) + " decimals (amount_decimals)");
  }
  return Status::InvalidArgument("amount is empty (NULL)");
}

// Appends the entries `statement` returns.
Status ReadInto(SqlTx& tx, const LedgerSpec& spec, const std::string& statement, const std::vector<Value>& params,
                std::vector<LedgerEntry>& entries) {
  auto rows = tx.Query(statement, params);
  if (!rows.ok())
    return Rewrap(rows.status(), "cannot read the ledger " + spec.table + ": " + rows.status().message() +
                                     " (check the table and column names against the database)");
  const size_t nkey = spec.key_columns.size();
  entries.reserve(entries.size() + rows->size());
  for (const Row& row : *rows) {
    LedgerEntry e;
    for (size_t i = 0; i < nkey; ++i) e.key.push_back(AsText(row[i]));
    auto amount = MinorUnits(spec, row[nkey]);
    if (!amount.ok())
      return Status::InvalidArgument("the ledger entry " + KeyText(e.key) + " in " + spec.table + "." +
                                     spec.amount_column + ": " + amount.status().message());
    e.amount = *amount;
    e.account = AsText(row[nkey + 1]);
    if (!spec.time_column.empty()) e.time_ms = AsInt(row[nkey + 2]);
    entries.push_back(std::move(e));
  }
  return Status::OK();
}

}  // namespace

Result<LedgerRead> ReadLedger(SqlTx& tx, const LedgerSpec& spec, const LedgerSql& sql, bool for_statement,
                              const Period& period) {
  std::vector<Value> where;
  for (const auto& w : spec.where) where.emplace_back(w.second);
  LedgerRead out;
  if (for_statement && period.IsAll()) {
    // The statement is compared with the whole ledger: that is a full read anyway.
    IDEM_RETURN_IF_ERROR(ReadInto(tx, spec, sql.select_entries, where, out.entries));
    out.total = static_cast<int64_t>(out.entries.size());
    return out;
  }
  // Three disjoint reads: marked entries; unmarked entries of repeated keys
  // (outside the period, when one is compared); unmarked entries in the period.
  std::vector<Value> marked = where;
  marked.emplace_back(LikePattern(spec.reversal_marker));
  IDEM_RETURN_IF_ERROR(ReadInto(tx, spec, sql.select_marked, marked, out.entries));
  std::vector<Value> repeated = marked;
  repeated.insert(repeated.end(), marked.begin(), marked.end());
  if (for_statement) {
    repeated.insert(repeated.end(), {period.from_ms, period.until_ms});
    IDEM_RETURN_IF_ERROR(ReadInto(tx, spec, sql.select_repeated_outside, repeated, out.entries));
    marked.insert(marked.end(), {period.from_ms, period.until_ms});
    IDEM_RETURN_IF_ERROR(ReadInto(tx, spec, sql.select_in_period, marked, out.entries));
  } else {
    IDEM_RETURN_IF_ERROR(ReadInto(tx, spec, sql.select_repeated, repeated, out.entries));
  }
  auto count = tx.Query(sql.count_entries, where);
  if (!count.ok())
    return Rewrap(count.status(), "cannot count the ledger " + spec.table + ": " + count.status().message());
  out.total = AsInt((*count)[0][0]);
  return out;
}

}  // namespace idem::reconcile
