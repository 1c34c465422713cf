#include "console/audit_log.h"

#include <limits>

#include "store/schema/schema.h"
#include "store/schema/tables.h"
#include "store/replay_grants.h"

namespace idem::console {

Result<AuditLog> AuditLog::Open(Store* store) {
  if (Status s = store->ExecScript(schema::AuditTableDdl(store->Dialect())); !s.ok())
    return Status::Unavailable("cannot create the audit table idem_audit in the store: " + s.ToString());
  return AuditLog(store);
}

Result<AuditLog> AuditLog::OpenExisting(Store* store) {
  auto tx = store->Begin();
  if (!tx.ok()) return tx.status();
  auto exists = schema::HasTable(**tx, "idem_audit");
  if (!exists.ok()) return exists.status();
  (*tx)->Rollback();
  return AuditLog(store, *exists);
}

Result<int64_t> AuditLog::Begin(const Identity& who, const std::string& action, const std::string& broker,
                                const std::string& dead_letter_ids, int64_t now_ms,
                                const std::vector<Message>& replayed) {
  auto tx = store_->Begin();
  if (!tx.ok()) return tx.status();
  // RETURNING works on all three engines (SQLite ≥ 3.35, MariaDB ≥ 10.5).
  auto rows = (*tx)->Query(
      "INSERT INTO idem_audit (at_ms, operator, authenticated_by, action, broker, dead_letter_ids, changed, outcome) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
      {now_ms, who.name, who.authenticated_by, action, broker, dead_letter_ids, int64_t{-1}, std::string("started")});
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return Status::Corruption("INSERT INTO idem_audit returned no id");
  const int64_t id = AsInt((*rows)[0][0]);
  IDEM_RETURN_IF_ERROR(replay_grants::Write(**tx, id, who.name, replayed, now_ms));
  IDEM_RETURN_IF_ERROR((*tx)->Commit());
  return id;
}

Status AuditLog::Finish(int64_t id, int64_t changed, const std::string& outcome) {
  auto tx = store_->Begin();
  if (!tx.ok()) return tx.status();
  auto n = (*tx)->Exec("UPDATE idem_audit SET changed = ?, outcome = ? WHERE id = ?", {changed, outcome, id});
  if (!n.ok()) return n.status();
  return (*tx)->Commit();
}

Result<std::vector<AuditEntry>> AuditLog::List(size_t limit, int64_t before_id) {
  if (!table_exists_) return std::vector<AuditEntry>{};
  auto tx = store_->Begin();
  if (!tx.ok()) return tx.status();
  auto rows = (*tx)->Query(
      "SELECT id, at_ms, operator, authenticated_by, action, broker, dead_letter_ids, changed, outcome "
      "FROM idem_audit WHERE id < ? ORDER BY id DESC LIMIT ?",
      {before_id > 0 ? before_id : std::numeric_limits<int64_t>::max(), static_cast<int64_t>(limit)});
  if (!rows.ok()) return rows.status();
  (*tx)->Rollback();
  std::vector<AuditEntry> out;
  for (const Row& r : *rows)
    out.push_back({AsInt(r[0]), AsInt(r[1]), AsText(r[2]), AsText(r[3]), AsText(r[4]), AsText(r[5]), AsText(r[6]),
                   AsInt(r[7]), AsText(r[8])});
  return out;
}

}  // namespace idem::console
