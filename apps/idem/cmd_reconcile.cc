// idem reconcile: the repair after a double charge, as a daily job. Finds the
// business keys applied more than once and the entries that do not match a bank
// statement; with --apply, reverses each extra copy (a new entry, never a
// delete), restores the balance and audits who did it — all in one transaction.
#include <sys/stat.h>

#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli_checks.h"
#include "cli_util.h"
#include "console/command_line_identity.h"
#include "ops/reconcile/ledger_toml.h"
#include "ops/reconcile/metrics_file.h"
#include "ops/reconcile/report.h"
#include "service/config.h"
#include "store/store_url.h"

namespace idem::cli {
namespace {

using namespace idem::reconcile;

constexpr const char* kExitCodes =
    "Exit status of reconcile (for a daily job to alert on):\n"
    "  0 clean: no duplicate, conflict or mismatch left (copies reversed before count as clean)\n"
    "  1 findings need a person: duplicates not applied (a dry run), conflicting entries,\n"
    "    statement mismatches, copies this run held because the bank charged them too, or\n"
    "    copies outside the statement's period that it does not show (not covered)\n"
    "  2 usage error: bad option or ledger description, or --apply refused the operator\n"
    "    (IDEM_OPERATOR with a wrong secret, read-only, or without --config); nothing was read\n"
    "  3 repaired: --apply reversed duplicates and nothing else is left; tell the account owners\n"
    "  4 failed: the store or the statement could not be read, or the apply rolled back;\n"
    "    nothing was changed (unless the message says the commit's outcome is unknown:\n"
    "    then run again without --apply to see whether the reversals landed)\n"
    "Guide: docs/operations.md, Reconciliation.";

struct Args {
  std::string store, ledger_file, statement, metrics_file, config, reason;
  std::string table, key_columns, amount_column, account_column, time_column, copy_columns;
  std::string balance_table, balance_key_column, balance_column, bank_sign, audit_table, decisions_table, since, until;
  std::string amount_unit;
  std::vector<std::string> where, release_holds;
  int amount_decimals = -1;
  int match_window_hours = 72;
  bool apply = false, json = false;
};

std::vector<std::string> SplitList(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string ReadFileOrDie(const std::string& path, const char* what, int code) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CliError(std::string("cannot read the ") + what + " " + path + ": check the path", code);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The file's [reconcile] section first, then every flag given on top of it.
LedgerSpec SpecOrDie(Args& a) {
  LedgerSpec s;
  if (!a.ledger_file.empty()) {
    auto file = ParseLedgerToml(ReadFileOrDie(a.ledger_file, "ledger description", 2), a.ledger_file);
    if (!file.ok()) throw CliError(file.status().message(), 2);
    s = file->spec;
    if (a.store.empty()) a.store = file->store;
  }
  auto set = [](const std::string& flag, std::string& field) {
    if (!flag.empty()) field = flag;
  };
  set(a.table, s.table);
  if (!a.key_columns.empty()) s.key_columns = SplitList(a.key_columns);
  set(a.amount_column, s.amount_column);
  set(a.account_column, s.account_column);
  set(a.time_column, s.time_column);
  if (!a.copy_columns.empty()) s.copy_columns = SplitList(a.copy_columns);
  set(a.balance_table, s.balance_table);
  set(a.balance_key_column, s.balance_key_column);
  set(a.balance_column, s.balance_column);
  set(a.audit_table, s.audit_table);
  set(a.decisions_table, s.decisions_table);
  if (a.amount_decimals >= 0) s.amount_decimals = a.amount_decimals;
  if (!a.amount_unit.empty()) s.amount_unit = a.amount_unit == "major" ? AmountUnit::kMajor : AmountUnit::kMinor;
  if (!a.bank_sign.empty()) s.bank_sign = a.bank_sign == "opposite" ? BankSign::kOpposite : BankSign::kSame;
  for (const std::string& w : a.where) {
    const size_t eq = w.find('=');
    if (eq == std::string::npos || eq == 0)
      throw CliError("--where takes COLUMN=VALUE (for example type=PAY_DEDUCT), not '" + w + "'", 2);
    s.where.emplace_back(w.substr(0, eq), w.substr(eq + 1));
  }
  Status valid = Validate(s);
  if (!valid.ok()) throw CliError(valid.message(), 2);
  return s;
}

std::unique_ptr<Store> OpenStoreOrDie(const std::string& url) {
  if (url.empty()) throw CliError("no store: give --store URL or reconcile.store in the ledger description", 2);
  auto parsed = ParseStoreUrl(url);
  if (!parsed.ok()) throw CliError(parsed.status().message(), 2);
  // Opening a SQLite path creates the file: a mistyped path must fail, not reconcile an empty ledger.
  struct stat st {};
  if (parsed->kind == StoreUrl::Kind::kSqlite && stat(parsed->path.c_str(), &st) != 0)
    throw CliError("no SQLite database at " + parsed->path + ": check --store", kExitFailed);
  auto store = OpenStore(url, Env::Default());
  if (!store.ok())
    throw CliError("cannot open the store " + RedactUrl(url) + ": " + store.status().ToString(), kExitFailed);
  return std::move(*store);
}

// --since/--until: the period the statement covers (needs the time column).
Period PeriodOrDie(const Args& a) {
  Period p;
  auto read = [](const std::string& text, const char* flag, int64_t* out) {
    if (text.empty()) return;
    auto ms = ParseTimeMs(text);
    if (!ms.ok()) throw CliError(std::string(flag) + ": " + ms.status().message(), 2);
    *out = *ms;
  };
  read(a.since, "--since", &p.from_ms);
  read(a.until, "--until", &p.until_ms);
  if (p.from_ms >= p.until_ms) throw CliError("--since must be before --until", 2);
  if (!p.IsAll() && a.statement.empty()) throw CliError("--since and --until need --statement", 2);
  return p;
}

// Who applies, established as `idem dlq replay/purge` establish it (an operator
// of --config checked by IDEM_OPERATOR_SECRET, else the OS account), before
// anything is read: a refused identity changes nothing (exit 2).
Actor ActorOrDie(const Args& a, int64_t now_ms) {
  std::optional<service::ServiceConfig> config;
  if (!a.config.empty()) {
    auto c = service::LoadConfig(a.config);
    if (!c.ok()) throw CliError(c.status().message(), 2);
    config = std::move(*c);
  }
  auto who = console::CommandLineIdentity(config ? &config->console : nullptr);
  if (!who.ok()) throw CliError("reconcile --apply: " + who.status().message() + " (nothing was changed)", 2);
  if (who->role != console::Role::kOperator)
    throw CliError("operator \"" + who->name + "\" has the read-only role and may not apply reversals (see " +
                       "[[console.operator]] role in " + a.config + "); nothing was changed",
                   2);
  return {who->name, who->authenticated_by, a.reason, now_ms};
}

void Run(Args a) {
  Env* env = Env::Default();
  const int64_t started_us = env->MonotonicMicros();
  const LedgerSpec spec = SpecOrDie(a);
  const Period period = PeriodOrDie(a);
  if (!a.release_holds.empty() && !a.apply)
    throw CliError("--release-hold needs --apply: a release is a decision, written with who made it", 2);
  const Actor actor = a.apply ? ActorOrDie(a, env->NowMs()) : Actor{};
  if (!period.IsAll() && spec.time_column.empty())
    throw CliError("--since and --until need the ledger's time column (--time-column or ledger.time_column)", 2);
  // Every run that got this far leaves metrics, a failed one too (success 0),
  // so the alert on the exported file fires for it.
  auto write_metrics = [&](const ReconcileResult* result) {
    if (a.metrics_file.empty()) return;
    const RunFacts facts{spec.table, env->NowMs(), static_cast<double>(env->MonotonicMicros() - started_us) / 1e6,
                         result};
    Status written = WriteMetricsFile(a.metrics_file, facts);
    if (!written.ok()) std::cerr << "idem: " << written.message() << "\n";
  };
  std::vector<StatementRow> statement;
  std::unique_ptr<Store> store;
  try {
    if (!a.statement.empty()) {
      auto rows = ParseStatementCsv(ReadFileOrDie(a.statement, "bank statement", kExitFailed), spec.amount_decimals);
      if (!rows.ok()) throw CliError(a.statement + ": " + rows.status().message(), kExitFailed);
      statement = std::move(*rows);
    }
    store = OpenStoreOrDie(a.store);
  } catch (const CliError& e) {
    if (e.exit_code == kExitFailed) write_metrics(nullptr);
    throw;
  }

  std::string period_text;
  if (!period.IsAll())
    period_text = (a.since.empty() ? std::string("the start") : FormatTimeMs(period.from_ms)) + " to " +
                  (a.until.empty() ? std::string("now") : FormatTimeMs(period.until_ms));
  ReconcileOptions options;
  options.statement = a.statement.empty() ? nullptr : &statement;
  options.statement_period = period;
  options.match_window_ms = int64_t{a.match_window_hours} * 3'600'000;
  options.source = {a.statement, period_text};
  options.release_holds = a.release_holds;
  options.apply = a.apply;
  options.actor = actor;
  auto result = Reconcile(*store, spec, options);
  if (result.ok() && !result->unknown_releases.empty())
    throw CliError("--release-hold " + result->unknown_releases.front() + ": no copy of that key in " + spec.table +
                       " is held by an earlier run (held copies show as 'held before'); nothing was changed",
                   2);
  write_metrics(result.ok() ? &*result : nullptr);
  if (!result.ok()) throw CliError("reconcile failed: " + result.status().ToString(), kExitFailed);
  const ReportContext ctx{
      std::string(store->Dialect().Name()), a.statement,        period_text,          static_cast<int64_t>(statement.size()),
      a.apply,          options.actor.name, options.actor.now_ms, FormatTimeMs};
  std::cout << (a.json ? JsonReport(spec, *result, ctx) : TextReport(spec, *result, ctx)) << std::flush;
  const ExitCode code = ExitCodeFor(*result);
  if (code == kExitNeedsAttention)
    throw CliError("reconcile: " + std::to_string(Unresolved(result->findings)) + " finding(s) of " + spec.table +
                       " need a person" + (a.apply ? "" : " (dry run: nothing was changed)"),
                   code);
  if (code == kExitRepaired)
    throw CliError("reconcile: reversed " + std::to_string(result->reversed_now) + " duplicate(s) in " + spec.table +
                       "; tell the owners of the accounts",
                   code);
}

}  // namespace

void AddReconcileCommand(CLI::App& app) {
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "reconcile",
      "Find effects applied more than once and entries that do not match a bank statement;\n"
      "with --apply, reverse each extra copy (a new entry, never a delete), restore the\n"
      "balance and write an audit row, in one transaction. A dry run by default.\n"
      "  idem reconcile --ledger ledger.toml --statement bank.csv\n"
      "  idem reconcile --store sqlite:pay.db --table pay_account_flows --key-columns biz_no,type \\\n"
      "      --amount-column amount_cents --account-column user_id --balance-table pay_accounts \\\n"
      "      --balance-key-column user_id --balance-column balance_cents --apply --config run.toml");
  cmd->footer(kExitCodes);
  AddStoreOption(cmd, &a->store, "Store URL (sqlite:PATH, postgresql://…); else reconcile.store");
  cmd->add_option("--ledger", a->ledger_file, "TOML file with a [reconcile] section describing the ledger")
      ->check(CLI::ExistingFile);
  cmd->add_option("--statement", a->statement, "Bank statement CSV: business key, amount, time");
  cmd->add_option("--since", a->since,
                  "The statement's period starts here (2026-09-28, 2026-09-28T00:00:00+08:00 or ms):\n"
                  "only ledger entries from then on are compared with it");
  cmd->add_option("--until", a->until, "The statement's period ends here (excluded)");
  cmd->add_option("--match-window-hours", a->match_window_hours,
                  "How far apart a bank movement and its ledger copy may be (default 72): a movement\n"
                  "the bank books a day late still matches its copy")
      ->transform(IntegerIn(0, 24 * 366));
  cmd->add_flag("--apply", a->apply,
                "Write the reversals and record each decision (default: a dry run that changes nothing)");
  cmd->add_option("--release-hold", a->release_holds,
                  "KEY (its first key column, or all columns as P1/PAY_DEDUCT): a person decides that the\n"
                  "copies an earlier run held are judged again; needs --apply, recorded with who (repeatable)");
  cmd->add_option("--config", a->config,
                  "The configuration idem run reads: with --apply, IDEM_OPERATOR names one of its\n"
                  "[[console.operator]] tables and IDEM_OPERATOR_SECRET must match its secret_hash;\n"
                  "without IDEM_OPERATOR the audit records your OS account")
      ->check(CLI::ExistingFile);
  cmd->add_option("--reason", a->reason,
                  "Why, a note for the audit row (default: duplicate application of KEY); never the identity");
  cmd->add_flag("--json", a->json, "Print the report as one JSON document");
  cmd->add_option("--metrics-file", a->metrics_file, "Write idem_reconcile_* gauges (Prometheus text format) here");
  auto* g = "Ledger (override the file)";
  cmd->add_option("--table", a->table, "Ledger table")->group(g);
  cmd->add_option("--key-columns", a->key_columns,
                  "Business-key columns, comma-separated; the statement names the first")
      ->group(g);
  cmd->add_option("--amount-column", a->amount_column, "Amount column (see --amount-unit)")->group(g);
  cmd->add_option("--account-column", a->account_column, "Account column")->group(g);
  cmd->add_option("--time-column", a->time_column, "Time column (ms since the epoch), optional")->group(g);
  cmd->add_option("--where", a->where, "Only entries with COLUMN=VALUE (repeatable)")->group(g);
  cmd->add_option("--copy-columns", a->copy_columns, "Columns a reversal copies from its original")->group(g);
  cmd->add_option("--balance-table", a->balance_table, "Balance table")->group(g);
  cmd->add_option("--balance-key-column", a->balance_key_column, "Its account column")->group(g);
  cmd->add_option("--balance-column", a->balance_column, "Its balance column (in the amount's unit)")->group(g);
  cmd->add_option("--amount-unit", a->amount_unit, "minor: integer cents (default); major: a decimal column (199.00)")
      ->check(CLI::IsMember({"minor", "major"}))
      ->group(g);
  cmd->add_option("--amount-decimals", a->amount_decimals,
                  "Digits after the decimal point: 2 makes 199.00 19900 (default 2)")
      ->transform(IntegerIn(0, 9))
      ->group(g);
  cmd->add_option("--bank-sign", a->bank_sign, "same: the bank lists -199.00 as -199.00; opposite: as 199.00")
      ->check(CLI::IsMember({"same", "opposite"}))
      ->group(g);
  cmd->add_option("--audit-table", a->audit_table, "Audit table (default idem_reconcile_audit)")->group(g);
  cmd->add_option("--decisions-table", a->decisions_table,
                  "Where --apply records what it decided per copy (default idem_reconcile_decisions)")
      ->group(g);
  cmd->callback([a] { Run(*a); });
}

}  // namespace idem::cli
