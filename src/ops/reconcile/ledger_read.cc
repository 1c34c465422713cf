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

}  // namespace

Result<std::vector<LedgerEntry>> ReadEntries(SqlTx& tx, const LedgerSpec& spec, const LedgerSql& sql) {
  std::vector<Value> params;
  for (const auto& w : spec.where) params.emplace_back(w.second);
  auto rows = tx.Query(sql.select_entries, params);
  if (!rows.ok())
    return Rewrap(rows.status(), "cannot read the ledger " + spec.table + ": " + rows.status().message() +
                                            " (check the table and column names against the database)");
  const size_t nkey = spec.key_columns.size();
  std::vector<LedgerEntry> entries;
  entries.reserve(rows->size());
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
  return entries;
}

}  // namespace idem::reconcile
