// Check and change in one statement, so concurrent deductions cannot both
// pass on the same money (a read-modify-write would let both read the old balance).
#include "guards/sql_identifier.h"
#include "idem/guards.h"

namespace idem {

Result<BalanceChange> ChangeBalance(SqlTx& tx, const BalanceColumn& where, const Value& key, int64_t delta,
                                    int64_t floor) {
  if (delta == 0) return Status::InvalidArgument("ChangeBalance needs a non-zero delta");
  IDEM_RETURN_IF_ERROR(guards::CheckIdentifiers({where.table, where.key_column, where.balance_column}));
  const std::string& bal = where.balance_column;
  auto n = tx.Exec("UPDATE " + where.table + " SET " + bal + " = " + bal + " + ? WHERE " + where.key_column +
                       " = ? AND " + bal + " + ? >= ?",
                   {delta, key, delta, floor});
  if (!n.ok()) return n.status();
  if (*n == 1) return BalanceChange::kApplied;
  if (*n > 1) return Status::InvalidArgument(where.key_column + " does not identify one row of " + where.table);
  // Nothing changed: tell a missing account apart from a short balance.
  auto rows = tx.Query("SELECT 1 FROM " + where.table + " WHERE " + where.key_column + " = ?", {key});
  if (!rows.ok()) return rows.status();
  return rows->empty() ? BalanceChange::kNotFound : BalanceChange::kInsufficient;
}

}  // namespace idem
