#include "ops/reconcile/ledger_read.h"

#include "ops/reconcile/rewrap_status.h"

namespace idem::reconcile {

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
    const Value& amount = row[nkey];
    if (!std::holds_alternative<int64_t>(amount))
      return Status::InvalidArgument("the ledger entry " + KeyText(e.key) + " has amount '" + AsText(amount) +
                                     "' in " + spec.amount_column +
                                     ", which is not an integer: reconcile needs integer minor units (cents)");
    e.amount = std::get<int64_t>(amount);
    e.account = AsText(row[nkey + 1]);
    if (!spec.time_column.empty()) e.time_ms = AsInt(row[nkey + 2]);
    entries.push_back(std::move(e));
  }
  return entries;
}

}  // namespace idem::reconcile
