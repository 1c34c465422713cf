#include "ops/outbox/relay.h"

#include <algorithm>
#include <string>
#include <vector>

#include "ops/outbox/outbox_row.h"

namespace idem::outbox {
namespace {

// "?, ?, ?": one placeholder per id; the count comes from code, the ids are bound.
std::string Placeholders(size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += i ? ", ?" : "?";
  return out;
}

std::vector<Value> Ids(const std::vector<OutboxRow>& rows) {
  std::vector<Value> ids;
  for (const OutboxRow& r : rows) ids.emplace_back(r.id);
  return ids;
}

// Claims the due rows: pushes their due time past the claim window so no other
// relay takes them while this one publishes. PostgreSQL and MariaDB skip rows
// another relay holds instead of waiting for them; SQLite's write lock (BEGIN
// IMMEDIATE) lets one relay claim at a time. The order is the due index's own
// (state, due_ms, then id), so the scan stops at the batch: sorting by id alone
// made InnoDB lock every due row before the LIMIT, and a second relay found
// nothing to take.
Result<std::vector<OutboxRow>> Claim(Store& store, const RelayOptions& o, int64_t now_ms) {
  auto tx = store.Begin();
  if (!tx.ok()) return tx.status();
  std::string sql = "SELECT " IDEM_OUTBOX_COLUMNS " FROM idem_outbox o WHERE state = 'PENDING' AND due_ms <= ?";
  // An earlier PENDING row of the same key goes first, even when it is not due
  // (backing off) or is held by another relay.
  if (o.per_key_order)
    sql += " AND NOT EXISTS (SELECT 1 FROM idem_outbox e WHERE e.msg_key = o.msg_key AND e.state = 'PENDING'"
           " AND e.id < o.id)";
  sql += " ORDER BY due_ms, id LIMIT ?";
  sql += store.Dialect().ForUpdateSkipLocked();
  auto found = (*tx)->Query(sql, {now_ms, o.batch_size});
  if (!found.ok()) return found.status();
  std::vector<OutboxRow> rows;
  for (const Row& row : *found) rows.push_back(OutboxRowFrom(row));
  if (rows.empty()) return rows;
  std::vector<Value> params{now_ms + o.claim_ms};
  for (Value& id : Ids(rows)) params.push_back(std::move(id));
  auto n = (*tx)->Exec("UPDATE idem_outbox SET due_ms = ?, attempts = attempts + 1 WHERE id IN (" +
                           Placeholders(rows.size()) + ")",
                       params);
  if (!n.ok()) return n.status();
  IDEM_RETURN_IF_ERROR((*tx)->Commit());
  for (OutboxRow& r : rows) ++r.attempts;
  return rows;
}

Status MarkSent(Store& store, const std::vector<OutboxRow>& rows, int64_t now_ms) {
  auto tx = store.Begin();
  if (!tx.ok()) return tx.status();
  std::vector<Value> params{now_ms};
  for (Value& id : Ids(rows)) params.push_back(std::move(id));
  auto n = (*tx)->Exec("UPDATE idem_outbox SET state = 'SENT', sent_ms = ?, last_error = '' WHERE id IN (" +
                           Placeholders(rows.size()) + ")",
                       params);
  if (!n.ok()) return n.status();
  return (*tx)->Commit();
}

int64_t BackoffMs(const RelayOptions& o, int attempts) {
  int64_t delay = o.backoff_initial_ms;
  for (int i = 1; i < attempts && delay < o.backoff_max_ms; ++i) delay *= 2;
  return std::min(delay, o.backoff_max_ms);
}

// After a failed publish: each row waits out its backoff, or is DEAD after its last attempt.
Status MarkFailed(Store& store, const RelayOptions& o, const std::vector<OutboxRow>& rows, const Status& why,
                  int64_t now_ms, RelayStep* step) {
  auto tx = store.Begin();
  if (!tx.ok()) return tx.status();
  for (const OutboxRow& r : rows) {
    const bool dead = r.attempts >= o.max_attempts;
    auto n = (*tx)->Exec("UPDATE idem_outbox SET state = ?, due_ms = ?, last_error = ? WHERE id = ?",
                         {std::string(dead ? "DEAD" : "PENDING"), now_ms + BackoffMs(o, r.attempts),
                          "publish attempt " + std::to_string(r.attempts) + ": " + why.ToString(), r.id});
    if (!n.ok()) return n.status();
    ++(dead ? step->dead : step->failed);
  }
  return (*tx)->Commit();
}

Result<int64_t> CleanUp(Store& store, const RelayOptions& o, int64_t now_ms) {
  auto tx = store.Begin();
  if (!tx.ok()) return tx.status();
  const std::vector<Value> due{now_ms - o.sent_retention_ms, o.cleanup_batch};
  const SqlDialect& d = store.Dialect();
  Result<int64_t> n = int64_t{0};
  if (d.LimitInSubquery()) {
    n = (*tx)->Exec("DELETE FROM idem_outbox WHERE id IN "
                    "(SELECT id FROM idem_outbox WHERE state = 'SENT' AND sent_ms < ? ORDER BY id LIMIT ?)",
                    due);
  } else {
    // No LIMIT in an IN subquery (MySQL), and a DELETE … LIMIT scanning the
    // primary key would wait on every row another relay's claim holds: pick
    // the sent rows first, skipping held ones, then delete those.
    auto sent = (*tx)->Query("SELECT id FROM idem_outbox WHERE state = 'SENT' AND sent_ms < ? ORDER BY id LIMIT ?" +
                                 std::string(d.ForUpdateSkipLocked()),
                             due);
    if (!sent.ok()) return sent.status();
    if (sent->empty()) return int64_t{0};
    std::vector<Value> ids;
    for (const Row& r : *sent) ids.emplace_back(AsInt(r[0]));
    n = (*tx)->Exec("DELETE FROM idem_outbox WHERE id IN (" + Placeholders(ids.size()) + ")", ids);
  }
  if (!n.ok()) return n.status();
  IDEM_RETURN_IF_ERROR((*tx)->Commit());
  return *n;
}

}  // namespace

Relay::Relay(Store& store, Publisher& publisher, RelayOptions options)
    : store_(store), publisher_(publisher), options_(options) {}

Result<RelayStep> Relay::RelayOnce(int64_t now_ms) {
  RelayStep step;
  auto rows = Claim(store_, options_, now_ms);
  if (!rows.ok()) return rows.status();
  step.claimed = static_cast<int64_t>(rows->size());
  if (!rows->empty()) {
    std::vector<Message> messages;
    for (const OutboxRow& r : *rows) messages.push_back(ToMessage(r));
    // The row is marked only after the broker confirmed it: a crash in between
    // publishes it again, never loses it.
    Status published = publisher_.PublishBatch(messages);
    if (published.ok()) {
      IDEM_RETURN_IF_ERROR(MarkSent(store_, *rows, now_ms));
      step.published = step.claimed;
    } else {
      IDEM_RETURN_IF_ERROR(MarkFailed(store_, options_, *rows, published, now_ms, &step));
    }
  }
  auto cleaned = CleanUp(store_, options_, now_ms);
  if (!cleaned.ok()) return cleaned.status();
  step.cleaned = *cleaned;
  return step;
}

Result<OutboxStats> ReadOutboxStats(Store& store, bool count_sent) {
  auto tx = store.Begin();
  if (!tx.ok()) return tx.status();
  auto rows = (*tx)->Query(count_sent ? "SELECT state, COUNT(*), MIN(created_ms) FROM idem_outbox GROUP BY state"
                                      : "SELECT state, COUNT(*), MIN(created_ms) FROM idem_outbox"
                                        " WHERE state IN ('PENDING', 'DEAD') GROUP BY state",
                           {});
  if (!rows.ok()) return rows.status();
  OutboxStats stats;
  for (const Row& r : *rows) {
    const std::string state = AsText(r[0]);
    if (state == "PENDING") {
      stats.pending = AsInt(r[1]);
      stats.oldest_pending_ms = AsInt(r[2]);
    } else if (state == "SENT") {
      stats.sent = AsInt(r[1]);
    } else if (state == "DEAD") {
      stats.dead = AsInt(r[1]);
    }
  }
  (*tx)->Rollback();
  return stats;
}

}  // namespace idem::outbox
