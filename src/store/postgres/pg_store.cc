// The PostgreSQL store. See include/idem/postgres_store.h for the contract.
#include "idem/postgres_store.h"

#include "core/record_row.h"
#include "store/postgres/pg_conn.h"
#include "store/postgres/pg_tx.h"
#include "store/postgres/pg_values.h"

namespace idem {
namespace {

constexpr int kSchemaVersion = 1;

// Same columns and meaning as the SQLite store's table. Keys compare byte-wise
// (COLLATE "C"): exact, locale-independent, and the cheapest index order.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS idem_schema (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS idem_records (
  consumer_group TEXT COLLATE "C" NOT NULL,
  key            TEXT COLLATE "C" NOT NULL,
  status         TEXT NOT NULL CHECK (status IN ('PROCESSING','SUCCEEDED','FAILED','RELEASED')),
  fingerprint    TEXT NOT NULL,
  message_id     TEXT NOT NULL,
  attempts       INTEGER NOT NULL DEFAULT 0,
  duplicates     INTEGER NOT NULL DEFAULT 0,
  lease_until_ms BIGINT NOT NULL,
  first_seen_ms  BIGINT NOT NULL,
  last_seen_ms   BIGINT NOT NULL,
  last_error     TEXT NOT NULL DEFAULT '',
  result_summary TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (consumer_group, key)
);
CREATE INDEX IF NOT EXISTS idem_records_by_last_seen ON idem_records (last_seen_ms);
)sql";

// Consumers starting together would race on CREATE TABLE IF NOT EXISTS (it
// can fail on the catalog's unique index), so schema setup holds this
// transaction-scoped advisory lock. The number is arbitrary but fixed ("idem").
constexpr const char* kSchemaLock = "SELECT pg_advisory_xact_lock(1768187245)";

class PgStore final : public Store {
 public:
  explicit PgStore(std::unique_ptr<pg::Conn> conn) : conn_(std::move(conn)) {}

  Status Init() {
    auto tx = Begin();
    if (!tx.ok()) return tx.status();
    IDEM_RETURN_IF_ERROR(conn_->Command(kSchemaLock).status());
    Status s = conn_->Command(kSchema).status();
    if (!s.ok() && s.code() == Status::Code::kPermanent)
      return Status::Permanent("cannot create the idem tables in " + conn_->Describe() + ": " + s.message() +
                               " (check that the first schema of the search_path exists and is writable)");
    IDEM_RETURN_IF_ERROR(s);
    auto rows = (*tx)->Query("SELECT version FROM idem_schema", {});
    if (!rows.ok()) return rows.status();
    if (rows->empty()) {
      IDEM_RETURN_IF_ERROR((*tx)->Exec("INSERT INTO idem_schema (version) VALUES ($1)", {int64_t{kSchemaVersion}})
                               .status());
    } else if (AsInt((*rows)[0][0]) > kSchemaVersion) {
      return Status::Permanent("the store was written by a newer idem (schema version " +
                               std::to_string(AsInt((*rows)[0][0])) + "); upgrade idem to open it");
    }
    return (*tx)->Commit();
  }

  Result<std::unique_ptr<StoreTx>> Begin() override {
    IDEM_RETURN_IF_ERROR(EnsureConnected());
    if (conn_->InTransaction())
      return Status::InvalidArgument(
          "a transaction is already open on this store's connection: finish it first (use one Store per thread)");
    auto res = conn_->Command("BEGIN");
    if (!res.ok() && !conn_->Healthy()) {
      // The server went away since the last use (a restart, a failover); nothing
      // was inside a transaction yet, so reconnecting and beginning again is safe.
      IDEM_RETURN_IF_ERROR(conn_->Reconnect());
      res = conn_->Command("BEGIN");
    }
    if (!res.ok()) return res.status();
    return pg::NewTx(conn_.get());
  }

  Result<std::optional<Record>> ReadRecord(std::string_view group, std::string_view key) override {
    // A read changes nothing, so one retry on a fresh connection is always safe;
    // this is what resolves an in-doubt COMMIT after the server came back.
    for (int attempt = 1;; ++attempt) {
      IDEM_RETURN_IF_ERROR(EnsureConnected());
      auto res = conn_->Run("SELECT " IDEM_PG_RECORD_COLUMNS " FROM idem_records WHERE consumer_group = $1 AND key = $2",
                            {std::string(group), std::string(key)});
      if (res.ok()) {
        Rows rows = pg::RowsFromResult(res->get());
        if (rows.empty()) return std::optional<Record>();
        return std::optional<Record>(RecordFromRow(rows[0]));
      }
      if (conn_->Healthy() || attempt == 2) return res.status();
    }
  }

  Result<int64_t> SweepRecords(int64_t older_than_ms, int64_t max_rows) override {
    IDEM_RETURN_IF_ERROR(EnsureConnected());
    // Only finished records are swept; a PROCESSING or RELEASED one still guards
    // work in progress. Rows a worker holds locked are left for the next sweep.
    auto res = conn_->Run(
        "DELETE FROM idem_records WHERE (consumer_group, key) IN (SELECT consumer_group, key FROM idem_records "
        "WHERE last_seen_ms < $1 AND status IN ('SUCCEEDED','FAILED') LIMIT $2 FOR UPDATE SKIP LOCKED)",
        {older_than_ms, max_rows});
    if (!res.ok()) return res.status();
    return static_cast<int64_t>(std::stoll(PQcmdTuples(res->get())));
  }

  Status ExecScript(std::string_view sql) override {
    auto tx = Begin();
    if (!tx.ok()) return tx.status();
    IDEM_RETURN_IF_ERROR(conn_->Command(sql).status());
    return (*tx)->Commit();
  }

  idem::Dialect Dialect() const override { return idem::Dialect::kPostgres; }

 private:
  Status EnsureConnected() { return conn_->Healthy() ? Status::OK() : conn_->Reconnect(); }

  std::unique_ptr<pg::Conn> conn_;
};

}  // namespace

Result<std::unique_ptr<Store>> OpenPostgresStore(const std::string& url, const PostgresStoreOptions& options,
                                                 Env* env) {
  auto conn = pg::Conn::Open(url, options, env ? env : Env::Default());
  if (!conn.ok()) return conn.status();
  auto store = std::make_unique<PgStore>(std::move(*conn));
  IDEM_RETURN_IF_ERROR(store->Init());
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace idem
