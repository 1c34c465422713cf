// A UNIQUE violation on insert means "already applied".
#include "guards/sql_identifier.h"
#include "idem/guards.h"

namespace idem {

Result<InsertOutcome> InsertOnce(SqlTx& tx, std::string_view table, const std::vector<Column>& row) {
  if (row.empty()) return Status::InvalidArgument("InsertOnce needs at least one column");
  IDEM_RETURN_IF_ERROR(guards::CheckIdentifiers({table}));
  std::string sql = "INSERT INTO " + std::string(table) + " (";
  std::vector<Value> params;
  params.reserve(row.size());
  for (size_t i = 0; i < row.size(); ++i) {
    IDEM_RETURN_IF_ERROR(guards::CheckIdentifiers({row[i].name}));
    sql += (i ? ", " : "") + row[i].name;
    params.push_back(row[i].value);
  }
  sql += ") VALUES (" + guards::ParameterMarkers(row.size()) + ")";

  // PostgreSQL and SQLite skip a row that violates a unique constraint inside
  // the statement: one round trip instead of three, and no error, so the
  // transaction stays usable. Any other failure (NOT NULL, CHECK) is still an
  // error; on PostgreSQL it aborts the transaction until the enclosing savepoint
  // (the pipeline's per-message one) is rolled back, like any failed statement.
  const Dialect dialect = tx.Dialect();
  if (dialect == Dialect::kPostgres || dialect == Dialect::kSqlite) {
    auto n = tx.Exec(sql + " ON CONFLICT DO NOTHING", params);
    if (!n.ok()) return n.status();
    return *n > 0 ? InsertOutcome::kInserted : InsertOutcome::kAlreadyApplied;
  }

  // MySQL rolls back only the failing statement on a duplicate key (1062), so
  // the plain INSERT is the whole guard: one round trip, the transaction stays
  // usable. (INSERT IGNORE would also turn NULLs and truncations into warnings
  // and a changed row.) A deadlock is still an error: it ends the transaction.
  if (dialect == Dialect::kMySql) {
    auto n = tx.Exec(sql, params);
    if (n.ok()) return InsertOutcome::kInserted;
    if (n.status().IsAlreadyExists()) return InsertOutcome::kAlreadyApplied;
    return n.status();
  }

  // Elsewhere the savepoint keeps the caller's transaction alive after the
  // violation (an engine that aborts the transaction on any error would
  // otherwise refuse every later statement) and undoes only this statement,
  // not what the handler wrote before it.
  constexpr std::string_view kSavepoint = "idem_insert_once";
  IDEM_RETURN_IF_ERROR(tx.Savepoint(kSavepoint));
  auto n = tx.Exec(sql, params);
  if (n.ok()) {
    IDEM_RETURN_IF_ERROR(tx.Release(kSavepoint));
    return InsertOutcome::kInserted;
  }
  IDEM_RETURN_IF_ERROR(tx.RollbackTo(kSavepoint));
  IDEM_RETURN_IF_ERROR(tx.Release(kSavepoint));
  if (n.status().IsAlreadyExists()) return InsertOutcome::kAlreadyApplied;
  return n.status();
}

}  // namespace idem
