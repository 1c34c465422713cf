// The embedded durable queue: one SQLite file, one table.
//
// A row is ready when state = 0 and visible_at_ms <= now. Poll leases rows by
// pushing visible_at_ms forward by the visibility timeout and stamping a random
// lease token; the receipt holds both (sequence = row id, generation = token).
// Settling checks the token, so a
// consumer whose lease ran out (and whose message went to someone else) cannot
// move the message under the new holder's feet; its ack still deletes the row,
// which is safe because the effect is committed and the guard absorbs the copy.
//
// Commits: a poll's lease and a settle of acks alone are written without
// waiting for the disk (a lease lost to a power cut only makes the messages
// deliverable again sooner; a lost ack delivers an applied message again, and
// the guard records it as a duplicate; the next synced commit on the file
// flushes both anyway), so a batch in a queue file of its own costs one synced
// commit, the store's. Retries, parks and releases are synced: they change
// where a message waits. When the queue lives in the store's own SQLite file,
// the pipeline writes the acks through the store's transaction
// (SettlesInStoreTransaction): one synced commit per batch, and an applied
// message is never delivered again.
#include "idem/embedded_queue.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <nlohmann/json.hpp>

#include "core/reserved_headers.h"
#include "source/embedded/queue_row.h"
#include "source/embedded/queue_sql.h"
#include "idem/store.h"
#include "store/schema/tables.h"
#include "store/sqlite/sqlite_db.h"

namespace idem {
namespace {

using nlohmann::json;
using embedded::HeadersToJson;
using embedded::kMessageColumns;
using embedded::MessageFromRow;


class EmbeddedQueueImpl final : public EmbeddedQueue, public SettlesInStoreTransaction {
 public:
  EmbeddedQueueImpl(std::unique_ptr<sqlite::Db> db, EmbeddedQueueOptions options, Env* env)
      : db_(std::move(db)), opt_(std::move(options)), env_(env) {
    json topics = json::array();
    for (const auto& t : opt_.topics) topics.push_back(t);
    topics_json_ = topics.dump(-1, ' ', false, json::error_handler_t::replace);
  }

  Status Init() {
    if (!opt_.create_if_missing) return CheckIsQueue();
    IDEM_RETURN_IF_ERROR(db_->Begin());
    Status s = db_->ExecScript(schema::QueueTablesDdl());
    if (!s.ok()) {
      db_->Rollback();
      return s;
    }
    return db_->Commit();
  }

  // For an existing-only open: the file must hold the queue table already.
  Status CheckIsQueue() {
    auto rows = db_->Query("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'idem_queue'");
    if (!rows.ok())
      return Status::InvalidArgument("'" + db_->path() + "' is not an idem queue: " + rows.status().message());
    if (AsInt((*rows)[0][0]) == 0)
      return Status::InvalidArgument("'" + db_->path() + "' is an SQLite file but not an idem queue (no idem_queue "
                                     "table): is it a store file?");
    return Status::OK();
  }

  std::string NewMessageId() {
    char buf[40];
    std::snprintf(buf, sizeof buf, "m-%016" PRIx64 "%08" PRIx32, env_->Random64(),
                  static_cast<uint32_t>(env_->Random64()));
    return buf;
  }

  Result<int64_t> Insert(const Message& m, int64_t delay_ms, int state, const std::string& reason,
                         std::string* id_out) {
    const int64_t now = env_->NowMs();
    std::string id = m.id.empty() ? NewMessageId() : m.id;
    // Every row comes in here from a producer (retries and parks change the
    // row in place, and only a replay writes an idem header): the reserved
    // x-idem-* headers it sent are renamed (core/reserved_headers.h).
    std::map<std::string, std::string> headers = m.headers;
    DisownReservedHeaders(headers);
    auto n = db_->Exec(
        "INSERT INTO idem_queue (msg_id, topic, key, headers, payload, state, visible_at_ms, attempt, "
        "published_at_ms, first_failed_ms, last_failed_ms, reason) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        {id, m.topic, Blob{m.key}, HeadersToJson(headers), Blob{m.payload}, int64_t{state}, now + delay_ms,
         int64_t{0}, m.published_at_ms ? m.published_at_ms : now,
         state ? now : 0, state ? now : 0, reason});
    if (!n.ok()) return n.status();
    if (id_out) *id_out = id;
    return static_cast<int64_t>(sqlite3_last_insert_rowid(db_->raw()));
  }

  Result<std::string> Publish(const Message& m, int64_t delay_ms) override {
    std::string id;
    auto row = Insert(m, delay_ms, 0, "", &id);
    if (!row.ok()) return row.status();
    return id;
  }

  // A message over SQLite's length limit (1e9 bytes by default) can never be
  // stored: refused before the transaction, so the batch is all or nothing and
  // the refusal is not mistaken for a passing failure of the file.
  Status CheckStorable(const Message& m, size_t i, size_t n) {
    const int64_t limit = sqlite3_limit(db_->raw(), SQLITE_LIMIT_LENGTH, -1);
    int64_t headers = 0;
    for (const auto& [k, v] : m.headers) headers += static_cast<int64_t>(k.size() + v.size()) + 8;
    for (int64_t size : {static_cast<int64_t>(m.payload.size()), static_cast<int64_t>(m.key.size()),
                         static_cast<int64_t>(m.topic.size()), headers})
      if (size > limit)
        return Status::InvalidArgument("the embedded queue cannot store message " + std::to_string(i + 1) + " of " +
                                       std::to_string(n) + " (nothing of this batch was stored): a field of " +
                                       std::to_string(size) + " bytes is over SQLite's limit of " +
                                       std::to_string(limit) + " bytes; make the message smaller");
    return Status::OK();
  }

  Status PublishBatch(std::vector<Message>& messages, int64_t delay_ms) override {
    for (size_t i = 0; i < messages.size(); ++i) IDEM_RETURN_IF_ERROR(CheckStorable(messages[i], i, messages.size()));
    IDEM_RETURN_IF_ERROR(db_->Begin());
    for (Message& m : messages) {
      auto row = Insert(m, delay_ms, 0, "", &m.id);
      if (!row.ok()) {
        db_->Rollback();
        return row.status();
      }
    }
    Status s = db_->Commit();
    if (!s.ok()) db_->Rollback();
    return s;
  }

  Result<int64_t> ParkRejected(const Message& m, const std::string& reason) override {
    return Insert(m, 0, 1, reason, nullptr);
  }

  // Runs `write` with the file's commits not waiting for the disk: for what a
  // power cut may safely undo (see the top of this file).
  template <typename Write>
  auto Unflushed(Write write) -> decltype(write()) {
    if (!opt_.durable_against_power_loss) return write();
    IDEM_RETURN_IF_ERROR(db_->ExecScript("PRAGMA synchronous = NORMAL"));
    auto result = write();
    Status back = db_->ExecScript("PRAGMA synchronous = FULL");
    if (!back.ok()) return back;
    return result;
  }

  Result<std::vector<Message>> PollOnce(size_t max) {
    return Unflushed([&] { return LeaseReady(max); });
  }

  Result<std::vector<Message>> LeaseReady(size_t max) {
    const int64_t now = env_->NowMs();
    const int64_t token = static_cast<int64_t>(env_->Random64() >> 2) + 1;  // never 0
    std::string sql =
        std::string("UPDATE idem_queue SET visible_at_ms = ?, lease_token = ?, deliveries = deliveries + 1 "
                    "WHERE id IN (SELECT id FROM idem_queue WHERE state = 0 AND visible_at_ms <= ?") +
        (opt_.topics.empty() ? "" : " AND topic IN (SELECT value FROM json_each(?))") +
        " ORDER BY visible_at_ms, id LIMIT ?) RETURNING " + kMessageColumns;
    std::vector<Value> params{now + opt_.visibility_timeout_ms, token, now};
    if (!opt_.topics.empty()) params.emplace_back(topics_json_);
    params.emplace_back(static_cast<int64_t>(max));
    auto rows = db_->Query(sql, params);
    if (!rows.ok()) return rows.status();
    std::sort(rows->begin(), rows->end(), [](const Row& a, const Row& b) { return AsInt(a[0]) < AsInt(b[0]); });
    std::vector<Message> out;
    out.reserve(rows->size());
    for (const Row& row : *rows) {
      Message m = MessageFromRow(row);
      m.received_at_ms = now;
      m.receipt = Receipt{AsInt(row[0]), token};
      held_.insert(m.receipt);
      out.push_back(std::move(m));
    }
    return out;
  }

  Result<std::vector<Message>> Poll(size_t max_messages, int64_t max_wait_ms) override {
    int64_t waited = 0;
    for (;;) {
      auto got = PollOnce(max_messages);
      if (!got.ok() || !got->empty() || waited >= max_wait_ms) return got;
      const int64_t step = std::min(opt_.poll_interval_ms, max_wait_ms - waited);
      env_->SleepMs(step);
      waited += step;
    }
  }

  Status SettleOne(const Settlement& s, int64_t now) {
    const int64_t row = s.message->receipt.sequence, token = s.message->receipt.generation;
    switch (s.kind) {
      case Settlement::Kind::kAck:
        return db_->Exec("DELETE FROM idem_queue WHERE id = ? AND state = 0", {row}).status();
      case Settlement::Kind::kRetry:
        return db_
            ->Exec("UPDATE idem_queue SET visible_at_ms = ?, lease_token = 0, attempt = ?, "
                   "first_failed_ms = CASE first_failed_ms WHEN 0 THEN ? ELSE first_failed_ms END, "
                   "last_failed_ms = ?, reason = ? WHERE id = ? AND lease_token = ?",
                   {now + s.delay_ms, int64_t{s.attempts}, now, now, s.reason, row, token})
            .status();
      case Settlement::Kind::kPark:
        return db_
            ->Exec("UPDATE idem_queue SET state = 1, lease_token = 0, attempt = ?, "
                   "first_failed_ms = CASE first_failed_ms WHEN 0 THEN ? ELSE first_failed_ms END, "
                   "last_failed_ms = ?, reason = ? WHERE id = ? AND lease_token = ?",
                   {int64_t{s.attempts}, now, now, s.reason, row, token})
            .status();
      case Settlement::Kind::kRelease:
        return db_
            ->Exec("UPDATE idem_queue SET visible_at_ms = ?, lease_token = 0 WHERE id = ? AND lease_token = ?",
                   {now + s.delay_ms, row, token})
            .status();
    }
    return Status::OK();
  }

  Status Settle(const std::vector<Settlement>& settlements) override {
    const bool acks_only = std::all_of(settlements.begin(), settlements.end(),
                                       [](const Settlement& s) { return s.kind == Settlement::Kind::kAck; });
    return acks_only ? Unflushed([&] { return SettleAll(settlements); }) : SettleAll(settlements);
  }

  Status SettleAll(const std::vector<Settlement>& settlements) {
    if (settlements.empty()) return Status::OK();
    // Refuse the whole call before touching anything if one receipt is not ours
    // to settle: another client's lease (an ack does not check the token), or
    // one this object settled already.
    for (const Settlement& s : settlements)
      if (!s.message || (!held_.count(s.message->receipt) && !abandoned_.count(s.message->receipt)))
        return Status::InvalidArgument("settlement for a message this queue object did not hand out, or settled "
                                       "twice (each consumer settles only what its own Poll returned, once)");
    const int64_t now = env_->NowMs();
    IDEM_RETURN_IF_ERROR(db_->Begin());
    for (const Settlement& s : settlements) {
      // Given back by Abandon: the queue has it again, and even an ack
      // (which does not check the lease) must not touch it.
      if (s.message && abandoned_.erase(s.message->receipt)) continue;
      Status st = SettleOne(s, now);
      if (!st.ok()) {
        db_->Rollback();
        return st;
      }
    }
    Status st = db_->Commit();
    if (!st.ok()) db_->Rollback();
    for (const Settlement& s : settlements)
      if (st.ok() && s.message) held_.erase(s.message->receipt);
    return st;
  }

  // The store's transaction is on this queue's file when its main database is.
  Result<bool> SameFile(StoreTx& tx) {
    const std::string_view file_query = tx.Dialect().DatabaseFileQuery();
    if (file_query.empty()) return false;  // a server database is never this file
    auto rows = tx.Query(file_query, {});
    if (!rows.ok()) return rows.status();
    if (rows->empty()) return false;
    std::error_code a, b;
    const auto theirs = std::filesystem::weakly_canonical(AsText((*rows)[0][0]), a);
    const auto ours = std::filesystem::weakly_canonical(db_->path(), b);
    return !a && !b && theirs == ours;
  }

  SettlesInStoreTransaction* settles_in_store_transaction() override { return this; }
  Result<bool> AckInTransaction(StoreTx& tx, const std::vector<const Message*>& messages) override {
    auto same = SameFile(tx);
    if (!same.ok() || !*same) return same;
    json ids = json::array();
    for (const Message* m : messages) {
      if (m && abandoned_.count(m->receipt)) continue;  // the queue has it again: an ack must not touch it
      if (!m || !held_.count(m->receipt))
        return Status::InvalidArgument("acknowledgement in the store's transaction for a message this queue "
                                       "object did not hand out, or settled twice");
      ids.push_back(m->receipt.sequence);
    }
    if (ids.empty()) return true;
    auto n = tx.Exec(embedded::kAckIdsSql, {ids.dump()});
    if (!n.ok()) return n.status();
    return true;
  }

  void AckCommitted(const std::vector<const Message*>& messages) override {
    for (const Message* m : messages)
      if (m && !abandoned_.erase(m->receipt)) held_.erase(m->receipt);
  }

  Status Abandon() override {
    if (held_.empty()) return Status::OK();
    const int64_t now = env_->NowMs();
    IDEM_RETURN_IF_ERROR(db_->Begin());
    for (const Receipt& receipt : held_) {
      const int64_t row = receipt.sequence, token = receipt.generation;
      // Only while our lease stands: after it ran out someone else may hold the row.
      Status st = db_->Exec("UPDATE idem_queue SET visible_at_ms = ?, lease_token = 0 WHERE id = ? AND lease_token = ?",
                            {now, row, token})
                      .status();
      if (!st.ok()) {
        db_->Rollback();
        return st;
      }
    }
    Status st = db_->Commit();
    if (!st.ok()) {
      db_->Rollback();
      return st;
    }
    abandoned_.insert(held_.begin(), held_.end());
    held_.clear();
    return Status::OK();
  }

  Result<QueueStats> Stats() override {
    const int64_t now = env_->NowMs();
    auto rows = db_->Query(
        "SELECT "
        "COALESCE(SUM(state = 0 AND visible_at_ms <= ?), 0), "
        "COALESCE(SUM(state = 0 AND visible_at_ms > ? AND lease_token = 0), 0), "
        "COALESCE(SUM(state = 0 AND visible_at_ms > ? AND lease_token <> 0), 0), "
        "COALESCE(SUM(state = 1), 0), "
        "COALESCE(MIN(CASE WHEN state = 1 THEN last_failed_ms END), 0) FROM idem_queue",
        {now, now, now});
    if (!rows.ok()) return rows.status();
    const Row& r = (*rows)[0];
    return QueueStats{AsInt(r[0]), AsInt(r[1]), AsInt(r[2]), AsInt(r[3]), AsInt(r[4])};
  }

  static DeadLetter DeadFromRow(const Row& row) {
    DeadLetter d;
    d.id = AsInt(row[0]);
    d.message = MessageFromRow(row);
    d.attempts = static_cast<int>(AsInt(row[7]));
    d.reason = AsText(row[9]);
    d.first_failed_ms = AsInt(row[10]);
    d.last_failed_ms = AsInt(row[11]);
    return d;
  }

  Result<std::vector<DeadLetter>> List(size_t limit, int64_t after_id) override {
    auto rows = db_->Query(std::string("SELECT ") + kMessageColumns +
                               ", reason, first_failed_ms, last_failed_ms FROM idem_queue "
                               "WHERE state = 1 AND id > ? ORDER BY id LIMIT ?",
                           {after_id, static_cast<int64_t>(limit)});
    if (!rows.ok()) return rows.status();
    std::vector<DeadLetter> out;
    for (const Row& row : *rows) out.push_back(DeadFromRow(row));
    return out;
  }

  Result<std::optional<DeadLetter>> Get(int64_t id) override {
    auto rows = db_->Query(std::string("SELECT ") + kMessageColumns +
                               ", reason, first_failed_ms, last_failed_ms FROM idem_queue "
                               "WHERE state = 1 AND id = ?",
                           {id});
    if (!rows.ok()) return rows.status();
    if (rows->empty()) return std::optional<DeadLetter>();
    return std::optional<DeadLetter>(DeadFromRow((*rows)[0]));
  }

  Result<int64_t> Replay(const std::vector<int64_t>& ids, const std::string& actor) override {
    return ChangeDead(ids, actor, "replay");
  }
  Result<int64_t> Purge(const std::vector<int64_t>& ids, const std::string& actor) override {
    return ChangeDead(ids, actor, "purge");
  }

 private:
  // Replays or purges dead letters in one transaction, writing an audit row for each.
  Result<int64_t> ChangeDead(const std::vector<int64_t>& ids, const std::string& actor, const std::string& action) {
    const int64_t now = env_->NowMs();
    IDEM_RETURN_IF_ERROR(db_->Begin());
    auto fail = [&](Status s) -> Result<int64_t> {
      db_->Rollback();
      return s;
    };
    std::vector<int64_t> targets = ids;
    if (targets.empty()) {
      auto rows = db_->Query("SELECT id FROM idem_queue WHERE state = 1 ORDER BY id");
      if (!rows.ok()) return fail(rows.status());
      for (const Row& r : *rows) targets.push_back(AsInt(r[0]));
    }
    int64_t changed = 0;
    for (int64_t id : targets) {
      auto audit = db_->Exec(
          "INSERT INTO idem_queue_audit (at_ms, actor, action, message_row, msg_id, detail) "
          "SELECT ?, ?, ?, id, msg_id, reason FROM idem_queue WHERE id = ? AND state = 1",
          {now, actor, action, id});
      if (!audit.ok()) return fail(audit.status());
      if (*audit == 0) continue;  // not a dead letter (any more)
      Result<int64_t> n = action == "replay"
                              ? db_->Exec("UPDATE idem_queue SET state = 0, visible_at_ms = ?, lease_token = 0, "
                                          "attempt = 0, headers = json_set(headers, '$.\"x-idem-replay\"', ?) "
                                          "WHERE id = ? AND state = 1",
                                          {now, actor, id})
                              : db_->Exec("DELETE FROM idem_queue WHERE id = ? AND state = 1", {id});
      if (!n.ok()) return fail(n.status());
      changed += *n;
    }
    Status s = db_->Commit();
    if (!s.ok()) return fail(s);
    return changed;
  }

  std::unique_ptr<sqlite::Db> db_;
  EmbeddedQueueOptions opt_;
  Env* env_;
  std::string topics_json_;
  std::set<Receipt> held_;       // receipts handed out by Poll and not settled yet
  std::set<Receipt> abandoned_;  // receipts given back by Abandon
};

}  // namespace

Result<std::unique_ptr<EmbeddedQueue>> EmbeddedQueue::Open(const std::string& path,
                                                           const EmbeddedQueueOptions& options, Env* env) {
  sqlite::OpenOptions o;
  o.synchronous_full = options.durable_against_power_loss;
  o.busy_timeout_ms = options.busy_timeout_ms;
  o.create = options.create_if_missing;
  // WAL is a property of the file, set when it was created; setting it again on
  // an existing-only open would rewrite a file that may not even be a queue.
  o.wal = options.create_if_missing;
  if (!options.create_if_missing) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
      return Status::NotFound("queue file '" + path + "' does not exist (opened without create_if_missing)");
  }
  auto db = sqlite::Db::Open(path, o);
  if (!db.ok()) return db.status();
  auto q = std::make_unique<EmbeddedQueueImpl>(std::move(*db), options, env);
  IDEM_RETURN_IF_ERROR(q->Init());
  return std::unique_ptr<EmbeddedQueue>(std::move(q));
}

}  // namespace idem
