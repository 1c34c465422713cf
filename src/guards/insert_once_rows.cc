// One statement for many rows instead of one round trip per row.
#include "guards/insert_once_rows.h"

#include <algorithm>

#include "guards/sql_identifier.h"

namespace idem::guards {

Result<int64_t> InsertOnceRows(SqlTx& tx, std::string_view table, const std::vector<std::vector<Column>>& rows) {
  if (rows.empty()) return int64_t{0};
  const std::vector<Column>& first = rows.front();
  if (first.empty()) return Status::InvalidArgument("InsertOnceRows needs at least one column");
  IDEM_RETURN_IF_ERROR(CheckIdentifiers({table}));
  std::string head = "INSERT INTO " + std::string(table) + " (";
  for (size_t i = 0; i < first.size(); ++i) {
    IDEM_RETURN_IF_ERROR(CheckIdentifiers({first[i].name}));
    head += (i ? ", " : "") + first[i].name;
  }
  head += ") VALUES ";
  for (const auto& row : rows) {
    bool same = row.size() == first.size();
    for (size_t i = 0; same && i < row.size(); ++i) same = row[i].name == first[i].name;
    if (!same) return Status::InvalidArgument("InsertOnceRows: every row must name the same columns as the first");
  }
  const Dialect dialect = tx.Dialect();
  // PostgreSQL and SQLite skip a conflicting row inside the statement (also a
  // second copy of a row within the same statement). MySQL fails the statement
  // on a duplicate key and rolls back only it (see InsertOnce).
  const std::string tail = dialect == Dialect::kMySql ? "" : " ON CONFLICT DO NOTHING";
  const std::string tuple = "(" + ParameterMarkers(first.size()) + ")";
  const size_t per_statement = std::max<size_t>(1, kMaxParameters / first.size());

  int64_t inserted = 0;
  for (size_t start = 0; start < rows.size(); start += per_statement) {
    const size_t end = std::min(rows.size(), start + per_statement);
    std::string sql = head;
    std::vector<Value> params;
    params.reserve((end - start) * first.size());
    for (size_t r = start; r < end; ++r) {
      sql += r == start ? tuple : ", " + tuple;
      for (const Column& c : rows[r]) params.push_back(c.value);
    }
    auto n = tx.Exec(sql + tail, params);
    if (!n.ok()) return n.status();
    inserted += *n;
  }
  return inserted;
}

}  // namespace idem::guards
