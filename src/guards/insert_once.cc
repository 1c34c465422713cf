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

  // One round trip, no error for a duplicate, and the transaction stays
  // usable: the store skips the row or fails only this statement (SqlTx::InsertNew).
  // Any other failure (NOT NULL, CHECK) is still an error; on PostgreSQL it
  // aborts the transaction until the enclosing savepoint (the pipeline's
  // per-message one) is rolled back, like any failed statement.
  auto n = tx.InsertNew(sql, params, 1);
  if (!n.ok()) return n.status();
  return *n > 0 ? InsertOutcome::kInserted : InsertOutcome::kAlreadyApplied;
}

}  // namespace idem
