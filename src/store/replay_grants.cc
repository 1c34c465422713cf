#include "store/replay_grants.h"

#include "idem/key.h"

namespace idem::replay_grants {

std::string ReplayCopyDigest(const Message& m) {
  // Length-prefixed, so no topic can run into the payload. Not the message
  // id: a message its producer gave no id is named anew on each delivery
  // (RabbitMQ), so the replayed copy would not match its own grant.
  return Fingerprint(std::to_string(m.topic.size()) + ":" + m.topic + m.payload);
}

Status Write(SqlTx& tx, int64_t audit_id, const std::string& actor, const std::vector<Message>& messages,
             int64_t now_ms) {
  for (const Message& m : messages) {
    auto n = tx.Exec("INSERT INTO idem_replay_grants (copy_digest, message_id, audit_id, actor, granted_ms) "
                     "VALUES (?, ?, ?, ?, ?)",
                     {ReplayCopyDigest(m), m.id, audit_id, actor, now_ms});
    if (!n.ok()) return n.status();
  }
  return Status::OK();
}

Result<bool> Take(SqlTx& tx, const Message& m) {
  // Two statements: MySQL cannot DELETE from a table its own subquery reads.
  auto rows = tx.Query("SELECT id FROM idem_replay_grants WHERE copy_digest = ? ORDER BY id LIMIT 1",
                       {ReplayCopyDigest(m)});
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return false;
  auto n = tx.Exec("DELETE FROM idem_replay_grants WHERE id = ?", {(*rows)[0][0]});
  if (!n.ok()) return n.status();
  return *n == 1;  // 0: a rival took it first
}

}  // namespace idem::replay_grants
