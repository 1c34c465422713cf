#include "store/schema/schema.h"

#include "store/schema/migrations.h"
#include "store/schema/tables.h"

namespace idem {
namespace schema {

const std::vector<SchemaTable>& StoreTables() {
  // One entry per table, in creation order.
  static const std::vector<SchemaTable> all{
      {"idem_schema", &VersionTableDdl},
      {"idem_records", &RecordsTableDdl},
      {"idem_outbox", &OutboxTableDdl},
      {"idem_dead_letters", &DeadLettersTableDdl},
      {"idem_replay_grants", &ReplayGrantsTableDdl},
      {"idem_audit", &AuditTableDdl},
  };
  return all;
}

const std::vector<SchemaTable>& CommandTables() {
  // One entry per table, in creation order.
  static const std::vector<SchemaTable> all{
      {"idem_reconcile_audit", &DefaultReconcileAuditTableDdl},
      {"idem_reconcile_decisions", &DefaultReconcileDecisionsTableDdl},
  };
  return all;
}

namespace {

std::string VersionRow(int version) {
  return "DELETE FROM idem_schema;\nINSERT INTO idem_schema (version) VALUES (" + std::to_string(version) + ");\n";
}

Result<int> FoundVersion(SqlTx& tx, bool has_version_table, bool has_records) {
  if (!has_version_table) return has_records ? 1 : 0;  // records from before versions were kept
  auto rows = tx.Query("SELECT MAX(version) FROM idem_schema", {});
  if (!rows.ok()) return rows.status();
  if (rows->empty() || IsNull((*rows)[0][0])) return has_records ? 1 : 0;
  return static_cast<int>(AsInt((*rows)[0][0]));
}

}  // namespace

Result<bool> HasTable(SqlTx& tx, std::string_view table) {
  auto found = tx.Query(tx.Dialect().TableExistsQuery(), {std::string(table)});
  if (!found.ok()) return found.status();
  return !found->empty() && AsInt((*found)[0][0]) > 0;
}

Result<SchemaReport> Inspect(SqlTx& tx) {
  SchemaReport report;
  bool has_version_table = false, has_records = false;
  for (const SchemaTable& t : StoreTables()) {
    auto found = HasTable(tx, t.name);
    if (!found.ok()) return found.status();
    if (!*found) report.missing_tables.emplace_back(t.name);
    if (t.name == "idem_schema") has_version_table = *found;
    if (t.name == "idem_records") has_records = *found;
  }
  auto version = FoundVersion(tx, has_version_table, has_records);
  if (!version.ok()) return version.status();
  report.found_version = *version;
  if (report.found_version > kIdemSchemaVersion)
    return Status::Permanent("the store was written by a newer idem (schema version " +
                             std::to_string(report.found_version) + "; this idem knows " +
                             std::to_string(kIdemSchemaVersion) + "): upgrade idem to open it");
  if (report.found_version > 0)
    for (const Migration& m : Migrations()) {
      if (m.version <= report.found_version) continue;
      auto sql = m.statements(tx);
      if (!sql.ok()) return sql.status();
      if (!sql->empty()) report.steps.push_back({std::string(m.what), std::move(*sql)});
    }
  for (const SchemaTable& t : StoreTables())
    for (const std::string& missing : report.missing_tables)
      if (missing == t.name) report.steps.push_back({"create table " + missing, t.ddl(tx.Dialect())});
  if (report.found_version != kIdemSchemaVersion)
    report.steps.push_back(
        {"set the schema version to " + std::to_string(kIdemSchemaVersion), VersionRow(kIdemSchemaVersion)});
  return report;
}

Result<SchemaReport> Migrate(SqlTx& tx, const std::function<Status(std::string_view)>& run_script) {
  auto report = Inspect(tx);
  if (!report.ok()) return report.status();
  IDEM_RETURN_IF_ERROR(RunSteps(*report, run_script));
  return report;
}

Status RunSteps(const SchemaReport& report, const std::function<Status(std::string_view)>& run_script) {
  for (const SchemaStep& step : report.steps)
    if (Status s = run_script(step.sql); !s.ok())
      // A retryable failure (a lock, a lost connection) stays retryable: the steps are safe to run again.
      return s.IsRetryable() ? s
                             : Status::Permanent("schema migration step '" + step.what + "' failed: " + s.ToString() +
                                                 " (check that the user may create and alter tables)");
  return Status::OK();
}

Status RequireCurrent(const SchemaReport& report, const std::string& what) {
  if (report.current()) return Status::OK();
  std::string lacks;
  for (const std::string& t : report.missing_tables) lacks += (lacks.empty() ? "" : ", ") + t;
  std::string msg = what + " is not ready for this idem (schema version " + std::to_string(report.found_version) +
                    ", needs " + std::to_string(report.current_version) + ")";
  if (!lacks.empty()) msg += "; missing tables: " + lacks;
  return Status::InvalidArgument(msg +
                                 ". Nothing was created (create_schema = false): have a user who may create tables "
                                 "run `idem schema migrate --store URL`, or apply `idem schema print --store URL`");
}

SchemaReport ReportForEmptyStore(const SqlDialect& dialect) {
  SchemaReport report;
  for (const SchemaTable& t : StoreTables()) {
    report.missing_tables.emplace_back(t.name);
    report.steps.push_back({"create table " + std::string(t.name), t.ddl(dialect)});
  }
  report.steps.push_back(
      {"set the schema version to " + std::to_string(kIdemSchemaVersion), VersionRow(kIdemSchemaVersion)});
  return report;
}

Status ApplyStoreAccess(Store& store, StoreAccess access, const std::function<Status()>& require_idem_store,
                        const std::string& what) {
  switch (access) {
    case StoreAccess::kCreate:
      return store.MigrateSchema().status();
    case StoreAccess::kExisting:
      return require_idem_store();
    case StoreAccess::kCurrentSchema: {
      auto report = store.CheckSchema();
      if (!report.ok()) return report.status();
      return RequireCurrent(*report, what);
    }
    case StoreAccess::kAsIs:
      break;
  }
  return Status::OK();
}

}  // namespace schema

std::string SchemaScript(const SqlDialect& dialect) {
  std::string out = "-- idem schema version " + std::to_string(kIdemSchemaVersion) + " for " +
                    std::string(dialect.Name()) + "\n";
  for (const SchemaStep& step : schema::ReportForEmptyStore(dialect).steps)
    out += "\n-- " + step.what + "\n" + step.sql;
  for (const schema::SchemaTable& t : schema::CommandTables())
    out += "\n-- " + std::string(t.name) + ": created by the command that writes it when first needed\n" +
           t.ddl(dialect);
  return out;
}

}  // namespace idem
