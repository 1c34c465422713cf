// Optimistic concurrency for rows without a natural state machine (stock,
// profiles). The version the caller read is the condition of the write.
#include "guards/sql_identifier.h"
#include "idem/guards.h"

namespace idem {

Result<VersionedUpdate> UpdateIfVersion(SqlTx& tx, const VersionedTable& where, const Value& key,
                                        int64_t expected_version, const std::vector<Column>& set) {
  if (set.empty()) return Status::InvalidArgument("UpdateIfVersion needs at least one column to set");
  IDEM_RETURN_IF_ERROR(guards::CheckIdentifiers({where.table, where.key_column, where.version_column}));
  std::string sql = "UPDATE " + where.table + " SET ";
  std::vector<Value> params;
  for (const Column& c : set) {
    IDEM_RETURN_IF_ERROR(guards::CheckIdentifiers({c.name}));
    if (c.name == where.key_column || c.name == where.version_column)
      return Status::InvalidArgument("UpdateIfVersion must not set the key or version column '" + c.name + "'");
    sql += c.name + " = ?, ";
    params.push_back(c.value);
  }
  const std::string& ver = where.version_column;
  sql += ver + " = " + ver + " + 1 WHERE " + where.key_column + " = ? AND " + ver + " = ?";
  params.push_back(key);
  params.emplace_back(std::in_place_type<int64_t>, expected_version);
  auto n = tx.Exec(sql, params);
  if (!n.ok()) return n.status();
  if (*n == 1) return VersionedUpdate::kApplied;
  if (*n > 1) return Status::InvalidArgument(where.key_column + " does not identify one row of " + where.table);
  auto rows = tx.Query("SELECT 1 FROM " + where.table + " WHERE " + where.key_column + " = ?", {key});
  if (!rows.ok()) return rows.status();
  return rows->empty() ? VersionedUpdate::kNotFound : VersionedUpdate::kVersionMoved;
}

}  // namespace idem
