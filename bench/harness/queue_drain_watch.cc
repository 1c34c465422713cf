#include "harness/queue_drain_watch.h"

#include <sqlite3.h>

#include <chrono>
#include <memory>
#include <thread>

#include "idem/env.h"

namespace idem::bench {
namespace {

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct FinalizeStmt {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};

// The value of the one-row, one-column query `stmt`; -1 for NULL. The
// statement is reset at once: one left stepped would hold its read
// transaction, and every later look would see that old snapshot.
Result<int64_t> ReadOne(sqlite3* db, sqlite3_stmt* stmt) {
  const int rc = sqlite3_step(stmt);
  const int64_t v = rc != SQLITE_ROW || sqlite3_column_type(stmt, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(stmt, 0);
  sqlite3_reset(stmt);
  if (rc != SQLITE_ROW) return Status::IOError(std::string("reading the queue: ") + sqlite3_errmsg(db));
  return v;
}

}  // namespace

Result<QueueDrain> WatchQueueDrain(const std::string& path, const QueueDrainOptions& o) {
  sqlite3* raw = nullptr;
  // Read and write, but never create: the consumer's file must already be there.
  if (sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    std::unique_ptr<sqlite3, CloseDb> failed(raw);
    return Status::IOError("cannot open the queue file " + path + " to watch it: " + sqlite3_errmsg(raw));
  }
  std::unique_ptr<sqlite3, CloseDb> db(raw);
  sqlite3_busy_timeout(db.get(), 1'000);
  auto prepare = [&](const char* sql) -> Result<std::unique_ptr<sqlite3_stmt, FinalizeStmt>> {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db.get(), sql, -1, &s, nullptr) != SQLITE_OK)
      return Status::IOError(std::string("cannot watch the queue: ") + sqlite3_errmsg(db.get()));
    return std::unique_ptr<sqlite3_stmt, FinalizeStmt>(s);
  };
  // The oldest row still queued: rows leave when acknowledged, and one
  // consumer takes them oldest first, so it moves when a batch settles.
  auto oldest = prepare("SELECT MIN(id) FROM idem_queue");
  auto count = prepare("SELECT COUNT(*) FROM idem_queue");
  if (!oldest.ok()) return oldest.status();
  if (!count.ok()) return count.status();

  Env* env = Env::Default();
  auto first = ReadOne(db.get(), oldest->get());
  if (!first.ok()) return first.status();
  if (*first < 0) return Status::InvalidArgument("the queue " + path + " is empty: nothing to watch");
  QueueDrain d;
  int64_t last_seen = *first, moved_us = env->MonotonicMicros();
  for (;;) {
    std::this_thread::sleep_for(std::chrono::microseconds(o.every_us));
    auto now_oldest = ReadOne(db.get(), oldest->get());
    if (!now_oldest.ok()) return now_oldest.status();
    const int64_t now = env->MonotonicMicros();
    if (*now_oldest != last_seen) {
      last_seen = *now_oldest;
      moved_us = now;
      if (d.first_settled_us == 0) {
        d.first_settled_us = now;
        if (*now_oldest >= 0) {
          auto left = ReadOne(db.get(), count->get());
          if (!left.ok()) return left.status();
          d.left_at_first = *left;
        }
      }
      if (*now_oldest < 0) {
        d.drained_us = now;
        return d;
      }
    }
    if ((now - moved_us) / 1000 > o.stall_ms)
      return Status::Unavailable("the queue stopped draining: " + std::to_string(o.stall_ms) +
                                 " ms without a message settled");
    if (o.still_running)
      if (Status s = o.still_running(); !s.ok()) return s;
  }
}

}  // namespace idem::bench
