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

Status NameMissingRecord(SqlTx& tx, std::string_view group, std::span<const RecordWrite> writes) {
  for (const RecordWrite& w : writes) {
    auto rows = tx.Query(ReadRecordSql(tx.Dialect()), {std::string(group), std::string(w.key)});
    if (!rows.ok()) return rows.status();
    if (rows->empty())
      return Status::NotFound(std::string(w.kind == RecordWrite::Kind::kTouch ? "record to count a copy on"
                                                                              : "record to complete") +
                              " is missing: " + std::string(w.key));
  }
  return Status::OK();
}

}  // namespace idem::record_sql
