// The MySQL/MariaDB store. See include/idem/mysql_store.h for the contract.
#include "idem/mysql_store.h"

#include "core/record_row.h"
#include "store/mysql/my_conn.h"
#include "store/mysql/my_tx.h"
#include "store/mysql/my_url.h"
#include "store/dialects.h"
#include "store/record_sql.h"
#include "store/schema/schema.h"

namespace idem {
namespace {

// Consumers starting together would race on CREATE TABLE and on stamping the
// schema version, so setup holds this named lock (one per server: the name
// carries the database). DDL commits implicitly in MySQL, so the lock, not a
// transaction, is what keeps two processes from migrating at once.
constexpr int64_t kSchemaLockWaitS = 60;

class MyStore final : public Store {
 public:
  explicit MyStore(std::unique_ptr<mysql::Conn> conn, std::string database)
      : conn_(std::move(conn)), database_(std::move(database)) {}

  // For an open without create: no lock, no DDL, only the catalog read.
  Status RequireIdemStore() {
    auto tx = Begin();
    if (!tx.ok()) return tx.status();
    IDEM_RETURN_IF_ERROR(record_sql::RequireIdemStore(**tx, conn_->Describe()));
    return (*tx)->Commit();
  }

  // MySQL commits each DDL statement at once, so a migration is not one
  // transaction: the named lock keeps a second process out, each step is safe
  // to run again, and the version row is written last.
  Result<SchemaReport> MigrateSchema() override {
    const std::string lock = "idem_schema:" + database_;
    IDEM_RETURN_IF_ERROR(EnsureConnected());
    auto got = conn_->Run("SELECT GET_LOCK(?, ?)", {lock, kSchemaLockWaitS});
    if (!got.ok()) return got.status();
    if (got->rows.empty() || AsInt(got->rows[0][0]) != 1)
      return Status::Busy("another process held the idem schema lock of " + conn_->Describe() + " for " +
                          std::to_string(kSchemaLockWaitS) + " s; retry when its setup has finished");
    auto done = Migrate();
    (void)conn_->Run("SELECT RELEASE_LOCK(?)", {lock});
    return done;
  }

  // No lock, no DDL: the catalogue and idem_schema read in a transaction rolled back.
  Result<SchemaReport> CheckSchema() override {
    auto tx = Begin();
    if (!tx.ok()) return tx.status();
    return schema::Inspect(**tx);
  }

  Result<std::unique_ptr<StoreTx>> Begin() override {
    IDEM_RETURN_IF_ERROR(EnsureConnected());
    // START TRANSACTION would commit an unfinished one without a word.
    if (conn_->OpenTransaction() != 0)
      return Status::InvalidArgument(
          "a transaction is already open on this store's connection: finish it first (use one Store per thread)");
    Status s = conn_->Command("START TRANSACTION");
    if (!s.ok() && !conn_->Healthy()) {
      // The server went away since the last use (a restart, a KILL); nothing
      // was inside a transaction yet, so reconnecting and beginning again is safe.
      IDEM_RETURN_IF_ERROR(conn_->Reconnect());
      s = conn_->Command("START TRANSACTION");
    }
    IDEM_RETURN_IF_ERROR(s);
    return mysql::NewTx(conn_.get(), conn_->TransactionStarted());
  }

  Result<std::optional<Record>> ReadRecord(std::string_view group, std::string_view key) override {
    // A read changes nothing, so one retry on a fresh connection is always safe;
    // this is what resolves an in-doubt COMMIT after the server came back.
    for (int attempt = 1;; ++attempt) {
      IDEM_RETURN_IF_ERROR(EnsureConnected());
      auto out = conn_->Run(record_sql::ReadRecordSql(MysqlDialect()), {std::string(group), std::string(key)});
      if (out.ok()) {
        if (out->rows.empty()) return std::optional<Record>();
        return std::optional<Record>(RecordFromRow(out->rows[0]));
      }
      if (conn_->Healthy() || attempt == 2) return out.status();
    }
  }

  Result<int64_t> SweepRecords(int64_t older_than_ms, int64_t max_rows) override {
    IDEM_RETURN_IF_ERROR(EnsureConnected());
    // Only finished records are swept; a PROCESSING or RELEASED one still guards
    // work in progress. MySQL allows LIMIT on a one-table DELETE (not in a subquery).
    auto out = conn_->Run(
        "DELETE FROM idem_records WHERE last_seen_ms < ? AND status IN ('SUCCEEDED','FAILED') LIMIT ?",
        {older_than_ms, max_rows});
    if (!out.ok()) return out.status();
    return out->affected;
  }

  Status ExecScript(std::string_view sql) override {
    auto tx = Begin();
    if (!tx.ok()) return tx.status();
    IDEM_RETURN_IF_ERROR(conn_->Command(sql));
    return (*tx)->Commit();
  }

  const SqlDialect& Dialect() const override { return MysqlDialect(); }

  std::string Describe() const { return conn_->Describe(); }

 private:
  Result<SchemaReport> Migrate() {
    auto report = CheckSchema();  // its transaction ends before the DDL, which would commit it
    if (!report.ok()) return report.status();
    Status s = schema::RunSteps(*report, [&](std::string_view sql) { return conn_->Command(sql); });
    if (s.code() == Status::Code::kPermanent)
      return Status::Permanent("cannot create the idem tables in " + conn_->Describe() + ": " + s.message() +
                               " (check that the user may CREATE tables in the database)");
    IDEM_RETURN_IF_ERROR(s);
    return report;
  }

  Status EnsureConnected() { return conn_->Healthy() ? Status::OK() : conn_->Reconnect(); }

  std::unique_ptr<mysql::Conn> conn_;
  std::string database_;
};

}  // namespace

Result<std::unique_ptr<Store>> OpenMysqlStore(const std::string& url, const MysqlStoreOptions& options, Env* env) {
  auto params = mysql::ParseMysqlUrl(url);
  if (!params.ok()) return params.status();
  auto conn = mysql::Conn::Open(*params, options, env ? env : Env::Default());
  if (!conn.ok()) return conn.status();
  auto store = std::make_unique<MyStore>(std::move(*conn), params->database);
  IDEM_RETURN_IF_ERROR(
      schema::ApplyStoreAccess(*store, options.access, [&] { return store->RequireIdemStore(); }, store->Describe()));
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace idem
