// The SQLite store: consumption records and business data in one file.
//
// Transactions are BEGIN IMMEDIATE, so a whole batch (claims, handlers,
// completions) holds the write lock once and pays one fsync at COMMIT.
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <bit>
#include <filesystem>
#include <string>
#include <unordered_map>

#include "core/record_row.h"
#include "idem/store.h"
#include "store/column_kind.h"
#include "idem/store_access.h"
#include "store/dialects.h"
#include "store/record_sql.h"
#include "store/schema/schema.h"
#include "store/sqlite/sqlite_db.h"

namespace idem {
namespace {

// The keys as one JSON array of strings, written by hand: nlohmann built a
// json value (a heap string per key) only to serialise it again, per batch.
// Keys are validated UTF-8 (core/key.cc), so escaping the quote, the backslash
// and any control character is all JSON asks for; json_each gives back the
// same bytes.
std::string JsonArrayOfKeys(std::span<const ClaimRequest> requests) {
  size_t size = 2;
  for (const ClaimRequest& r : requests) size += r.key.size() + 3;
  std::string out;
  out.reserve(size);
  out.push_back('[');
  for (const ClaimRequest& r : requests) {
    if (out.size() > 1) out.push_back(',');
    out.push_back('"');
    for (char c : r.key) {
      if (c == '"' || c == '\\') {
        out.push_back('\\');
        out.push_back(c);
      } else if (static_cast<unsigned char>(c) < 0x20) {
        static constexpr char kHex[] = "0123456789abcdef";
        out.append("\\u00");
        out.push_back(kHex[(c >> 4) & 0xf]);
        out.push_back(kHex[c & 0xf]);
      } else {
        out.push_back(c);
      }
    }
    out.push_back('"');
  }
  out.push_back(']');
  return out;
}

class SqliteTx final : public StoreTx {
 public:
  explicit SqliteTx(sqlite::Db* db) : db_(db) {}
  ~SqliteTx() override { Rollback(); }

  Result<int64_t> Exec(std::string_view sql, const std::vector<Value>& params) override {
    return db_->Exec(sql, params);
  }
  Result<Rows> Query(std::string_view sql, const std::vector<Value>& params) override {
    return db_->Query(sql, params);
  }
  // Prepared (and cached by Db) like any statement: the pipeline opens and
  // releases a savepoint per message, and sqlite3_exec would parse each one anew.
  Status Savepoint(std::string_view name) override { return db_->Exec("SAVEPOINT " + std::string(name), {}).status(); }
  Status RollbackTo(std::string_view name) override {
    return db_->Exec("ROLLBACK TO " + std::string(name), {}).status();
  }
  Status Release(std::string_view name) override { return db_->Exec("RELEASE " + std::string(name), {}).status(); }
  const SqlDialect& Dialect() const override { return SqliteDialect(); }

  // pragma_table_info as a table-valued function takes the name as a bound
  // parameter (the PRAGMA statement would need it spliced into the text).
  Result<std::optional<std::vector<TableColumn>>> DescribeTable(std::string_view table) override {
    auto rows = db_->Query("SELECT name, type FROM pragma_table_info(?) ORDER BY cid", {std::string(table)});
    if (!rows.ok()) return rows.status();
    return ColumnsFromRows(*rows, &SqliteColumnKind);
  }

  Result<std::vector<ClaimResult>> Claim(std::string_view group, std::span<const ClaimRequest> requests,
                                         int64_t now_ms, int64_t lease_until_ms) override {
    IDEM_RETURN_IF_ERROR(WritePending());  // a second Claim in one transaction must see the first one's records
    std::vector<ClaimResult> out(requests.size());
    // One read for the whole batch: the keys travel as one JSON array parameter.
    std::string keys = JsonArrayOfKeys(requests);
    auto rows = db_->Query("SELECT " IDEM_RECORD_COLUMNS
                           " FROM idem_records WHERE consumer_group = ? AND key IN "
                           "(SELECT value FROM json_each(?))",
                           {std::string(group), keys});
    if (!rows.ok()) return rows.status();
    std::unordered_map<std::string, Record> found;
    for (const Row& row : *rows) {
      Record r = RecordFromRow(row);
      found.emplace(r.key, std::move(r));
    }
    // We hold the write lock (BEGIN IMMEDIATE), so absent keys stay absent until
    // we write them — which is why their first write can wait for WriteRecords.
    for (size_t i = 0; i < requests.size(); ++i) {
      auto it = found.find(requests[i].key);
      if (it != found.end()) {
        out[i].existing = std::move(it->second);
        continue;
      }
      pending_[PendingKey(group, requests[i].key)] =
          PendingRecord{std::string(group), requests[i], now_ms, lease_until_ms};
      out[i].inserted = true;
    }
    return out;
  }

  // A new key's record is written once, finished; the new keys of a batch go
  // in multi-row INSERTs (a step per record paid SQLite's per-statement work
  // — cursors opened, the write re-checked — a hundred times per batch): 64
  // rows at a time, then one INSERT per bit of the rest (70 new keys are 64 +
  // 4 + 2, three statements), so no batch writes its records one by one. The
  // writes to records that existed before (take-overs, copies) go in one
  // UPDATE per 64. The inserts go first, so a key completed twice is
  // inserted, then updated.
  Status WriteRecords(std::string_view group, std::span<const RecordWrite> writes, int64_t now_ms) override {
    // A copy counted on a record not written yet: write the claims first.
    for (const RecordWrite& w : writes)
      if (w.kind == RecordWrite::Kind::kTouch && pending_.count(PendingKey(group, w.key))) {
        IDEM_RETURN_IF_ERROR(WritePending());
        break;
      }
    std::vector<RecordWrite> updates;
    std::vector<Value> rows;  // kRowParams values per new record, in InsertSql's column order
    rows.reserve(writes.size() * kRowParams);
    for (const RecordWrite& w : writes) {
      auto p = pending_.find(PendingKey(group, w.key));
      if (p == pending_.end()) {
        updates.push_back(w);
        continue;
      }
      PendingRecord& r = p->second;  // erased below: its strings move into the row
      rows.emplace_back(std::move(r.group));
      rows.emplace_back(std::move(r.request.key));
      rows.emplace_back(std::string(RecordStatusName(w.status)));
      rows.emplace_back(std::move(r.request.fingerprint));
      rows.emplace_back(w.message_id.empty() ? std::move(r.request.message_id) : std::string(w.message_id));
      rows.emplace_back(r.now_ms);
      rows.emplace_back(std::max(r.now_ms, now_ms));
      rows.emplace_back(std::string(w.error));
      rows.emplace_back(std::string(w.summary));
      pending_.erase(p);
    }
    std::vector<Value> chunk;
    for (auto next = rows.begin(); next != rows.end();) {
      const size_t left = static_cast<size_t>(rows.end() - next) / kRowParams;
      const size_t n = std::bit_floor(std::min<size_t>(left, kMaxInsertRows));
      const auto end = next + static_cast<ptrdiff_t>(n * kRowParams);
      chunk.assign(std::make_move_iterator(next), std::make_move_iterator(end));
      IDEM_RETURN_IF_ERROR(db_->Exec(InsertSql(n), chunk).status());
      next = end;
    }
    for (size_t from = 0; from < updates.size(); from += 64) {
      const std::span<const RecordWrite> part(updates.data() + from, std::min<size_t>(64, updates.size() - from));
      IDEM_RETURN_IF_ERROR(UpdateExisting(group, part, now_ms));
    }
    return Status::OK();
  }

  Status Commit() override {
    Status s = WritePending();
    if (!s.ok()) return s;
    s = db_->Commit();
    if (!s.ok()) db_->Rollback();
    done_ = true;
    return s;
  }

  void Rollback() override {
    if (!done_) db_->Rollback();
    done_ = true;
    pending_.clear();
  }

 private:
  // A new key's record as Claim would have inserted it (PROCESSING, with the lease).
  struct PendingRecord {
    std::string group;
    ClaimRequest request;
    int64_t now_ms = 0;
    int64_t lease_until_ms = 0;
  };
  static std::string PendingKey(std::string_view group, std::string_view key) {
    std::string k(group);
    k.push_back('\0');  // keys and groups never hold NUL (core/key.cc)
    k.append(key);
    return k;
  }

  static constexpr size_t kRowParams = 9;

  // The INSERT of n finished new records, n a power of two up to 64. Not the
  // set shapes of store/set_shape.h: in-process, an extra statement costs a
  // step, not a round trip, and seven cached statements hold far less than the
  // shapes' dozens (which cost 1 MiB more over the bench's soak).
  static constexpr size_t kMaxInsertRows = 64;
  static const std::string& InsertSql(size_t n) {
    static const std::array<std::string, 7> kByLog2 = [] {
      std::array<std::string, 7> out;
      for (size_t log2 = 0; log2 < out.size(); ++log2) {
        std::string& sql = out[log2];
        sql = "INSERT INTO idem_records (consumer_group, key, status, fingerprint, message_id, attempts, "
              "lease_until_ms, first_seen_ms, last_seen_ms, last_error, result_summary) VALUES ";
        for (size_t i = 0; i < (size_t{1} << log2); ++i)
          sql += i ? ",(?, ?, ?, ?, ?, 1, 0, ?, ?, ?, ?)" : "(?, ?, ?, ?, ?, 1, 0, ?, ?, ?, ?)";
      }
      return out;
    }();
    return kByLog2[static_cast<size_t>(std::countr_zero(n))];
  }

  static constexpr size_t kUpdateParams = 6;

  // The UPDATE of n existing records (n is 64, 16 or 1), each write one row of
  // VALUES (key, touch, status, error, summary, take-over message id).
  static const std::string& UpdateSql(size_t n) {
    auto build = [](size_t rows) {
      std::string sql = "WITH w(k, t, s, e, m, i) AS (VALUES ";
      for (size_t i = 0; i < rows; ++i) sql += i ? ",(?, ?, ?, ?, ?, ?)" : "(?, ?, ?, ?, ?, ?)";
      return sql +
             ") UPDATE idem_records SET status = CASE WHEN w.t THEN status ELSE w.s END, "
             "attempts = attempts + CASE WHEN w.t THEN 0 ELSE 1 END, "
             "duplicates = duplicates + CASE WHEN w.t THEN 1 ELSE 0 END, "
             "last_error = CASE WHEN w.t THEN last_error ELSE w.e END, "
             "result_summary = CASE WHEN w.t THEN result_summary ELSE w.m END, "
             "message_id = CASE WHEN w.i = '' THEN message_id ELSE w.i END, "
             "lease_until_ms = CASE WHEN w.t THEN lease_until_ms ELSE 0 END, "
             "last_seen_ms = CASE WHEN w.t THEN MAX(last_seen_ms, ?) ELSE ? END "
             "FROM w WHERE consumer_group = ? AND key = w.k";
    };
    static const std::string k64 = build(64), k16 = build(16), k1 = build(1);
    return n == 64 ? k64 : n == 16 ? k16 : k1;
  }

  // Up to 64 writes in one statement, padded to 16 or 64 rows with the last
  // write again: a repeated row updates its record once, the same way.
  Status UpdateExisting(std::string_view group, std::span<const RecordWrite> writes, int64_t now_ms) {
    const size_t n = writes.size() == 1 ? 1 : writes.size() <= 16 ? 16 : 64;
    std::vector<Value> params;
    params.reserve(n * kUpdateParams + 3);
    for (size_t i = 0; i < n; ++i) {
      const RecordWrite& w = writes[std::min(i, writes.size() - 1)];
      const bool touch = w.kind == RecordWrite::Kind::kTouch;
      params.emplace_back(std::string(w.key));
      params.emplace_back(int64_t{touch});
      params.emplace_back(std::string(touch ? "" : RecordStatusName(w.status)));
      params.emplace_back(std::string(w.error));
      params.emplace_back(std::string(w.summary));
      params.emplace_back(std::string(w.message_id));
    }
    params.emplace_back(now_ms);
    params.emplace_back(now_ms);
    params.emplace_back(std::string(group));
    auto changed = db_->Exec(UpdateSql(n), params);
    if (!changed.ok()) return changed.status();
    if (*changed == static_cast<int64_t>(writes.size())) return Status::OK();
    return record_sql::NameMissingRecord(*this, group, writes);
  }

  // Writes the claims no WriteRecords has written yet, as PROCESSING records: what
  // Claim promises, for a transaction that commits (or claims again) before
  // completing every key.
  Status WritePending() {
    for (const auto& [k, r] : pending_) {
      auto n = db_->Exec(
          "INSERT INTO idem_records (consumer_group, key, status, fingerprint, message_id, attempts, "
          "lease_until_ms, first_seen_ms, last_seen_ms) VALUES (?, ?, 'PROCESSING', ?, ?, 0, ?, ?, ?)",
          {r.group, r.request.key, r.request.fingerprint, r.request.message_id, r.lease_until_ms, r.now_ms,
           r.now_ms});
      if (!n.ok()) return n.status();
    }
    pending_.clear();
    return Status::OK();
  }

  sqlite::Db* db_;
  bool done_ = false;
  // Keys claimed by this transaction whose record is not written yet (see Claim).
  std::unordered_map<std::string, PendingRecord> pending_;
};

class SqliteStore final : public Store {
 public:
  explicit SqliteStore(std::unique_ptr<sqlite::Db> db) : db_(std::move(db)) {}

  // BEGIN IMMEDIATE is the schema lock: a second process waits for the first's migration.
  Result<SchemaReport> MigrateSchema() override {
    auto tx = Begin();
    if (!tx.ok()) return tx.status();
    auto done = schema::Migrate(**tx, [&](std::string_view sql) { return db_->ExecScript(sql); });
    if (!done.ok()) return done.status();
    IDEM_RETURN_IF_ERROR((*tx)->Commit());
    return done;
  }

  // In a deferred (read) transaction: a check neither writes nor waits for a writer's lock.
  Result<SchemaReport> CheckSchema() override {
    IDEM_RETURN_IF_ERROR(db_->Begin(/*immediate=*/false));
    SqliteTx tx(db_.get());
    return schema::Inspect(tx);
  }

  // For an open without create: reads the catalog in a deferred (read)
  // transaction, so a probe neither writes nor waits for a writer's lock.
  Status RequireIdemStore() {
    IDEM_RETURN_IF_ERROR(db_->Begin(/*immediate=*/false));
    SqliteTx tx(db_.get());
    IDEM_RETURN_IF_ERROR(record_sql::RequireIdemStore(tx, "'" + db_->path() + "'"));
    return tx.Commit();
  }

  Result<std::unique_ptr<StoreTx>> Begin() override {
    IDEM_RETURN_IF_ERROR(db_->Begin());
    return std::unique_ptr<StoreTx>(new SqliteTx(db_.get()));
  }

  Result<std::optional<Record>> ReadRecord(std::string_view group, std::string_view key) override {
    auto rows = db_->Query(record_sql::ReadRecordSql(SqliteDialect()), {std::string(group), std::string(key)});
    if (!rows.ok()) return rows.status();
    if (rows->empty()) return std::optional<Record>();
    return std::optional<Record>(RecordFromRow((*rows)[0]));
  }

  Result<int64_t> SweepRecords(int64_t older_than_ms, int64_t max_rows) override {
    // Only finished records are swept; a PROCESSING or RELEASED one still guards work in progress.
    return db_->Exec(
        "DELETE FROM idem_records WHERE (consumer_group, key) IN (SELECT consumer_group, key FROM idem_records "
        "WHERE last_seen_ms < ? AND status IN ('SUCCEEDED','FAILED') LIMIT ?)",
        {older_than_ms, max_rows});
  }

  Status ExecScript(std::string_view sql) override {
    IDEM_RETURN_IF_ERROR(db_->Begin());
    Status s = db_->ExecScript(sql);
    if (!s.ok()) {
      db_->Rollback();
      return s;
    }
    return db_->Commit();
  }

  const SqlDialect& Dialect() const override { return SqliteDialect(); }

 private:
  std::unique_ptr<sqlite::Db> db_;
};

}  // namespace

Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path, const SqliteStoreOptions& options,
                                               StoreAccess access, Env* /*env*/) {
  const bool create = access == StoreAccess::kCreate;
  sqlite::OpenOptions o;
  o.synchronous_full = options.durable_against_power_loss;
  o.busy_timeout_ms = options.busy_timeout_ms;
  o.create = create;
  // WAL is a property of the file, set when it was created; setting it on an
  // open without create would rewrite a file that may not even be a store.
  o.wal = create;
  if (!create && path != ":memory:") {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
      return Status::NotFound("the SQLite store '" + path + "' does not exist: check the path (idem run creates "
                              "the store at its first start; nothing was created)");
  }
  auto db = sqlite::Db::Open(path, o);
  if (!db.ok()) return db.status();
  auto store = std::make_unique<SqliteStore>(std::move(*db));
  IDEM_RETURN_IF_ERROR(
      schema::ApplyStoreAccess(*store, access, [&] { return store->RequireIdemStore(); }, "the SQLite store '" + path + "'"));
  return std::unique_ptr<Store>(std::move(store));
}

Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path, const SqliteStoreOptions& options, Env* env) {
  return OpenSqliteStore(path, options, StoreAccess::kCreate, env);
}

}  // namespace idem
