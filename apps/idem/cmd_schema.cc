// idem schema: idem's own tables for a DBA (idem/schema.h, docs/stores.md).
//   print    the DDL to apply to an empty database, for a dialect or a store URL
//   check    what a store lacks or holds at an older version; creates nothing
//   migrate  creates what is missing and applies pending migrations
#include <filesystem>
#include <iostream>

#include "cli_util.h"
#include "commands.h"
#include "idem/schema.h"
#include "idem/store_access.h"
#include "json_out.h"
#include "store/schema/schema.h"
#include "store/store_url.h"

namespace idem::cli {
namespace {

struct SchemaArgs {
  std::string store, dialect;
  bool json = false;
};

StoreUrl ParseOrDie(const std::string& url) {
  auto parsed = ParseStoreUrl(url);
  if (!parsed.ok()) throw CliError(parsed.status().message(), 2);
  return *parsed;
}

// A SQLite store that does not exist yet is an empty database to `check`:
// reported, and not created (opening it would make the file).
bool IsMissingSqliteFile(const StoreUrl& url) {
  std::error_code ec;
  return url.kind == StoreUrl::Kind::kSqlite && url.path != ":memory:" && !std::filesystem::exists(url.path, ec);
}

nlohmann::json ReportJson(const std::string& store, const SqlDialect& d, const SchemaReport& r) {
  nlohmann::json steps = nlohmann::json::array();
  for (const SchemaStep& s : r.steps) steps.push_back(s.what);
  return {{"store", RedactUrl(store)},        {"dialect", std::string(d.Name())},
          {"found_version", r.found_version}, {"current_version", r.current_version},
          {"current", r.current()},           {"missing_tables", r.missing_tables},
          {"steps", steps}};
}

void PrintSteps(const SchemaReport& r) {
  for (size_t i = 0; i < r.steps.size(); ++i) std::cout << "  " << i + 1 << ". " << r.steps[i].what << "\n";
}

void Print(const SchemaArgs& a) {
  if (a.store.empty() == a.dialect.empty())
    throw CliError("give one of --dialect sqlite|postgres|mysql or --store URL", 2);
  const SqlDialect* d = a.store.empty() ? FindSqlDialect(a.dialect) : ParseOrDie(a.store).dialect;
  if (d == nullptr) throw CliError("--dialect must be sqlite, postgres or mysql, not '" + a.dialect + "'", 2);
  std::cout << SchemaScript(*d);
}

void Check(const SchemaArgs& a) {
  const StoreUrl url = ParseOrDie(a.store);
  SchemaReport report;
  if (IsMissingSqliteFile(url)) {
    report = schema::ReportForEmptyStore(*url.dialect);
  } else {
    auto store = OpenStore(a.store, Env::Default(), StoreAccess::kAsIs);
    if (!store.ok()) throw CliError("cannot open the store " + RedactUrl(a.store) + ": " + store.status().ToString());
    auto checked = (*store)->CheckSchema();
    if (!checked.ok()) throw CliError("cannot read the schema of " + RedactUrl(a.store) + ": " + checked.status().ToString());
    report = std::move(*checked);
  }
  if (a.json) {
    std::cout << DumpLine(ReportJson(a.store, *url.dialect, report)) << "\n";
  } else if (report.current()) {
    std::cout << RedactUrl(a.store) << ": schema version " << report.found_version << ", current\n";
  } else {
    std::cout << RedactUrl(a.store) << ": "
              << (report.found_version == 0 ? std::string("no idem tables")
                                            : "schema version " + std::to_string(report.found_version))
              << ", this idem needs version " << report.current_version << "\n";
    if (!report.missing_tables.empty()) {
      std::cout << "missing tables:";
      for (const std::string& t : report.missing_tables) std::cout << " " << t;
      std::cout << "\n";
    }
    std::cout << "`idem schema migrate --store URL` would:\n";
    PrintSteps(report);
  }
  if (!report.current())
    throw CliError("the store is not ready for this idem: run `idem schema migrate --store URL` as a user who may "
                   "create tables, or apply `idem schema print --store URL`",
                   1);
}

void Migrate(const SchemaArgs& a) {
  const StoreUrl url = ParseOrDie(a.store);
  SchemaReport done;
  if (IsMissingSqliteFile(url)) {
    // Nothing to read: the open creates the file and every table, as `idem run` would.
    auto store = OpenStore(a.store, Env::Default(), StoreAccess::kCreate);
    if (!store.ok()) throw CliError("cannot create the store " + RedactUrl(a.store) + ": " + store.status().ToString());
    done = schema::ReportForEmptyStore(*url.dialect);
  } else {
    auto store = OpenStore(a.store, Env::Default(), StoreAccess::kAsIs);
    if (!store.ok()) throw CliError("cannot open the store " + RedactUrl(a.store) + ": " + store.status().ToString());
    auto migrated = (*store)->MigrateSchema();
    if (!migrated.ok()) throw CliError("migration of " + RedactUrl(a.store) + " failed: " + migrated.status().ToString());
    done = std::move(*migrated);
  }
  if (a.json) {
    std::cout << DumpLine(ReportJson(a.store, *url.dialect, done)) << "\n";
    return;
  }
  if (done.current()) {
    std::cout << RedactUrl(a.store) << ": schema version " << done.current_version << ", current: nothing to do\n";
    return;
  }
  std::cout << RedactUrl(a.store) << ": from schema version " << done.found_version << " to " << done.current_version
            << (url.dialect->TransactionalDdl()
                    ? ", in one transaction:\n"
                    : "; MySQL/MariaDB commit each DDL statement at once, so the steps ran one by one (each is "
                      "safe to run again, and the version was written last):\n");
  PrintSteps(done);
}

}  // namespace

void AddSchemaCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("schema",
                                 "idem's own tables (records, outbox, dead letters, replay grants, audit,\n"
                                 "reconciliation) for a DBA: print the DDL, check a store, migrate it.");
  cmd->require_subcommand(1);

  auto print = std::make_shared<SchemaArgs>();
  auto* pr = cmd->add_subcommand("print",
                                 "Print the DDL of every table and index, and the version row, for an empty\n"
                                 "database: apply it as a user who may create tables, then run idem with\n"
                                 "create_schema = false. Connects to nothing.");
  pr->add_option("--dialect", print->dialect, "sqlite, postgres or mysql (MariaDB too)");
  AddStoreOption(pr, &print->store, "A store URL: its dialect is printed (nothing is opened)");
  pr->callback([print] { Print(*print); });

  auto check = std::make_shared<SchemaArgs>();
  auto* ck = cmd->add_subcommand("check",
                                 "Say what the store lacks or holds at an older version, and what `migrate`\n"
                                 "would do. Creates and changes nothing (a missing SQLite file stays missing).\n"
                                 "Exit 0 when current, 1 when something is missing or old.");
  AddStoreOption(ck, &check->store, "Store URL, e.g. sqlite:payments.db")->required();
  ck->add_flag("--json", check->json, "Print one JSON object");
  ck->callback([check] { Check(*check); });

  auto migrate = std::make_shared<SchemaArgs>();
  auto* mg = cmd->add_subcommand("migrate",
                                 "Create idem's missing tables and apply pending migrations, holding the\n"
                                 "store's schema lock, in one transaction where the engine allows it\n"
                                 "(MySQL/MariaDB commit each DDL statement at once). Says what it did.");
  AddStoreOption(mg, &migrate->store, "Store URL")->required();
  mg->add_flag("--json", migrate->json, "Print one JSON object");
  mg->callback([migrate] { Migrate(*migrate); });
}

}  // namespace idem::cli
