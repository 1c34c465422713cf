// The PostgreSQL store. See include/idem/postgres_store.h for the contract.
#include "idem/postgres_store.h"

#include "core/record_row.h"
#include "store/postgres/pg_conn.h"
#include "store/postgres/pg_tx.h"
#include "store/postgres/pg_values.h"
#include "store/dialects.h"
#include "store/record_sql.h"
#include "store/schema/schema.h"

namespace idem {
namespace {

// Consumers starting together would race on CREATE TABLE IF NOT EXISTS (it
// can fail on the catalog's unique index), so schema setup holds this
// transaction-scoped advisory lock. The number is arbitrary but fixed ("idem").
constexpr const char* kSchemaLock = "SELECT pg_advisory_xact_lock(1768187245)";

class PgStore final : public Store {
 public:
  explicit PgStore(std::unique_ptr<pg::Conn> conn) : conn_(std::move(conn)) {}

  // DDL is transactional here: the whole migration commits or none of it.
  Result<SchemaReport> MigrateSchema() override {
    auto tx = Begin();
    if (!tx.ok()) return tx.status();
    IDEM_RETURN_IF_ERROR(conn_->Command(kSchemaLock).status());
    auto done = schema::Migrate(**tx, [&](std::string_view sql) { return conn_->Command(sql).status(); });
    if (!done.ok() && done.status().code() == Status::Code::kPermanent)
      return Status::Permanent("cannot create the idem tables in " + conn_->Describe() + ": " +
                               done.status().message() +
                               " (check that the first schema of the search_path exists and is writable)");
    if (!done.ok()) return done.status();
    IDEM_RETURN_IF_ERROR((*tx)->Commit());
    return done;
  }

  // No lock, no DDL: the catalogue and idem_schema read in a transaction rolled back.
  Result<SchemaReport> CheckSchema() override {
    auto tx = Begin();
    if (!tx.ok()) return tx.status();
    return schema::Inspect(**tx);
  }

  // For an open without create: no lock, no DDL, only the catalog read.
  Status RequireIdemStore() {
    auto tx = Begin();
    if (!tx.ok()) return tx.status();
    IDEM_RETURN_IF_ERROR(record_sql::RequireIdemStore(**tx, conn_->Describe()));
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
      auto res = conn_->Run(record_sql::ReadRecordSql(PostgresDialect()), {std::string(group), std::string(key)});
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

  const SqlDialect& Dialect() const override { return PostgresDialect(); }

  std::string Describe() const { return conn_->Describe(); }

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
  IDEM_RETURN_IF_ERROR(
      schema::ApplyStoreAccess(*store, options.access, [&] { return store->RequireIdemStore(); }, store->Describe()));
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace idem
