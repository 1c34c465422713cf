// One statement for many rows instead of one round trip per row.
#include "guards/insert_once_rows.h"

#include <algorithm>

#include "guards/sql_identifier.h"
#include "store/set_shape.h"

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
  // Where the store skips a conflicting row inside the statement (also a
  // second copy of a row within the same statement), a chunk is padded to its
  // shape with copies of its last row. Where a duplicate key fails the
  // statement and rolls back only it (MySQL), a chunk is cut to a shape instead.
  const bool pad = tx.Dialect().InsertSkipsRepeatedRows();
  const std::string tuple = "(" + ParameterMarkers(first.size()) + ")";
  const size_t per_statement = SetShapeAtMost(std::max<size_t>(1, kMaxParameters / first.size()));

  int64_t inserted = 0;
  for (size_t start = 0; start < rows.size();) {
    const size_t left = std::min(rows.size() - start, per_statement);
    const size_t take = pad ? left : SetShapeAtMost(left);
    const size_t shape = pad ? SetShapeAtLeast(take) : take;
    std::string sql = head;
    std::vector<Value> params;
    params.reserve(shape * first.size());
    for (size_t i = 0; i < shape; ++i) {
      sql += i == 0 ? tuple : ", " + tuple;
      for (const Column& c : rows[start + std::min(i, take - 1)]) params.push_back(c.value);
    }
    // Where a duplicate fails the statement, it fails the set: the caller
    // falls back to one row at a time (see the header).
    auto n = pad ? tx.InsertNew(sql, params, shape) : tx.Exec(sql, params);
    if (!n.ok()) return n.status();
    // A padding copy is inserted only when nothing makes the row unique.
    if (*n > static_cast<int64_t>(take))
      return Status::InvalidArgument("InsertOnceRows inserted a row of " + std::string(table) +
                                        " twice: the table needs a primary key or unique index over the columns "
                                        "that identify a row, or nothing is inserted once");
    inserted += *n;
    start += take;
  }
  return inserted;
}

}  // namespace idem::guards
