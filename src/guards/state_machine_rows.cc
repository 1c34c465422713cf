// StateMachine::MoveRows: the order CAS for a whole batch in one statement
// instead of one round trip per event.
#include <algorithm>

#include "guards/sql_identifier.h"
#include "store/set_shape.h"
#include "idem/guards.h"

namespace idem {

Result<int64_t> StateMachine::MoveRows(SqlTx& tx, const std::vector<RowMove>& rows, std::string_view target) const {
  auto preds = predecessors_.find(target);
  if (preds == predecessors_.end())
    return Status::InvalidArgument("no declared transition leads to state '" + std::string(target) + "'");
  if (rows.empty()) return int64_t{0};
  const StateMachineSpec& s = spec_;
  const std::vector<Column>& first = rows.front().also_set;
  for (const Column& c : first) {
    IDEM_RETURN_IF_ERROR(guards::CheckIdentifiers({c.name}));
    if (c.name == s.state_column || c.name == s.key_column || c.name == s.version_column)
      return Status::InvalidArgument("MoveRows must not set the state, key or version column '" + c.name + "'");
  }
  for (const RowMove& r : rows) {
    bool same = r.also_set.size() == first.size();
    for (size_t i = 0; same && i < first.size(); ++i) same = r.also_set[i].name == first[i].name;
    if (!same) return Status::InvalidArgument("MoveRows: every row must set the same columns as the first");
  }
  const std::string integer = std::string(tx.Dialect().IntegerParameter());
  const size_t per_row = 1 + 2 * first.size();
  const size_t per_statement = SetShapeAtMost(
      std::clamp<size_t>((guards::kMaxParameters - 1 - preds->second.size()) / per_row, 1, guards::kMaxCaseKeys));
  int64_t moved = 0;
  // A set is padded to its shape with its last row: the repeated WHEN never
  // matches first and the repeated IN entry selects no other row.
  for (size_t start = 0; start < rows.size(); start += per_statement) {
    const size_t end = std::min(rows.size(), start + per_statement);
    const size_t shape = SetShapeAtLeast(end - start);
    auto row = [&](size_t n) -> const RowMove& { return rows[std::min(start + n, end - 1)]; };
    std::string sql = "UPDATE " + s.table + " SET " + s.state_column + " = ?";
    std::vector<Value> params{std::string(target)};
    if (!s.version_column.empty()) sql += ", " + s.version_column + " = " + s.version_column + " + 1";
    for (size_t c = 0; c < first.size(); ++c) {
      sql += ", " + first[c].name + " = CASE " + s.key_column;
      for (size_t n = 0; n < shape; ++n) {
        const Value& v = row(n).also_set[c].value;
        sql += std::holds_alternative<int64_t>(v) ? " WHEN ? THEN " + integer : " WHEN ? THEN ?";
        params.push_back(row(n).key);
        params.push_back(v);
      }
      sql += " END";
    }
    sql += " WHERE " + s.key_column + " IN (" + guards::ParameterMarkers(shape) + ") AND " + s.state_column +
           " IN (" + guards::ParameterMarkers(preds->second.size()) + ")";
    for (size_t n = 0; n < shape; ++n) params.push_back(row(n).key);
    for (const std::string& p : preds->second) params.emplace_back(p);
    auto n = tx.Exec(sql, params);
    if (!n.ok()) return n.status();
    moved += *n;
  }
  return moved;
}

}  // namespace idem
