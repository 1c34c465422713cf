#include "ops/record_listing.h"

#include "core/record_row.h"
#include "store/record_sql.h"

namespace idem::ops {

Result<std::vector<Record>> ListRecords(Store& store, const RecordFilter& filter, int64_t now_ms) {
  // MySQL reserves `key`: the dialect quotes it.
  const SqlDialect& d = store.Dialect();
  std::string sql = "SELECT " + record_sql::RecordColumns(d) + " FROM idem_records WHERE ";
  std::vector<Value> params;
  if (filter.status) {
    sql += "status = ?";
    params.emplace_back(std::string(RecordStatusName(*filter.status)));
  } else {
    sql += "((status = 'PROCESSING' AND lease_until_ms < ?) OR status = 'FAILED')";
    params.emplace_back(now_ms);
  }
  if (!filter.group.empty()) {
    sql += " AND consumer_group = ?";
    params.emplace_back(filter.group);
  }
  sql += " ORDER BY last_seen_ms, consumer_group, " + record_sql::KeyColumn(d) + " LIMIT ?";
  params.emplace_back(filter.limit);
  auto tx = store.Begin();
  if (!tx.ok()) return tx.status();
  auto rows = (*tx)->Query(sql, params);
  (*tx)->Rollback();  // read-only
  if (!rows.ok()) return rows.status();
  std::vector<Record> out;
  for (const Row& r : *rows) out.push_back(RecordFromRow(r));
  return out;
}

}  // namespace idem::ops
