#include "store/record_sql.h"

#include "store/schema/schema.h"

namespace idem::record_sql {

std::string KeyColumn(const SqlDialect& dialect) { return dialect.QuoteIdentifier("key"); }

std::string RecordColumns(const SqlDialect& dialect) {
  return "consumer_group, " + KeyColumn(dialect) +
         ", status, fingerprint, message_id, attempts, duplicates, lease_until_ms, first_seen_ms, last_seen_ms, "
         "last_error, result_summary";
}

Status RequireIdemStore(SqlTx& tx, const std::string& what) {
  auto found = schema::HasTable(tx, "idem_records");
  if (!found.ok()) return found.status();
  if (!*found)
    return Status::NotFound(what + " is not an idem store (no idem_records table): check the store URL (idem run "
                            "creates the tables at its first start)");
  return schema::Inspect(tx).status();  // refuses a store written by a newer idem
}

std::string ReadRecordSql(const SqlDialect& dialect) {
  return "SELECT " + RecordColumns(dialect) + " FROM idem_records WHERE consumer_group = ? AND " +
         KeyColumn(dialect) + " = ?";
}

Status TakeOver(SqlTx& tx, std::string_view group, const ClaimRequest& req, int64_t now_ms, int64_t lease_until_ms) {
  auto n = tx.Exec("UPDATE idem_records SET status = 'PROCESSING', message_id = ?, lease_until_ms = ?, "
                   "last_seen_ms = ? WHERE consumer_group = ? AND " + KeyColumn(tx.Dialect()) + " = ?",
                   {req.message_id, lease_until_ms, now_ms, std::string(group), req.key});
  if (!n.ok()) return n.status();
  if (*n != 1) return Status::NotFound("record to take over is missing: " + req.key);
  return Status::OK();
}

Status NoteDuplicate(SqlTx& tx, std::string_view group, std::string_view key, int64_t now_ms) {
  const SqlDialect& d = tx.Dialect();
  return tx.Exec("UPDATE idem_records SET duplicates = duplicates + 1, last_seen_ms = " + std::string(d.Greatest()) +
                     "(last_seen_ms, ?) WHERE consumer_group = ? AND " + KeyColumn(d) + " = ?",
                 {now_ms, std::string(group), std::string(key)})
      .status();
}

}  // namespace idem::record_sql
