#include "ops/reconcile/reconcile.h"

#include <limits>

#include "ops/reconcile/ledger_read.h"
#include "ops/reconcile/ledger_sql.h"
#include "ops/reconcile/rewrap_status.h"

namespace idem::reconcile {
namespace {

Period Widened(const Period& p, int64_t by_ms) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  Period out = p;
  out.from_ms = p.from_ms < kMin + by_ms ? kMin : p.from_ms - by_ms;
  out.until_ms = p.until_ms > kMax - by_ms ? kMax : p.until_ms + by_ms;
  return out;
}

}  // namespace

Result<ReconcileResult> Reconcile(Store& store, const LedgerSpec& spec, const ReconcileOptions& options) {
  if (!options.statement_period.IsAll() && spec.time_column.empty())
    return Status::InvalidArgument(
        "a statement period needs the ledger's time column: give --time-column or "
        "ledger.time_column");
  const LedgerSql sql(spec, store.Dialect());
  const DecisionsSql decisions(store.Dialect(), spec.decisions_table);
  if (options.apply) {
    for (const auto& [table, ddl] :
         {std::pair{spec.audit_table, sql.create_audit}, {spec.decisions_table, decisions.create}}) {
      Status created = store.ExecScript(ddl);
      if (!created.ok()) return Rewrap(created, "cannot create the table " + table + ": " + created.message());
    }
  }
  auto tx = store.Begin();
  if (!tx.ok()) return Rewrap(tx.status(), "cannot start a transaction: " + tx.status().message());
  // The statement's movements may lie up to the window outside its period.
  const Period read_period = Widened(options.statement_period, options.match_window_ms);
  auto read = ReadLedger(**tx, spec, sql, options.statement != nullptr, read_period);
  if (!read.ok()) return read.status();
  auto holds = ReadHolds(**tx, spec, decisions);
  if (!holds.ok()) return holds.status();

  ReconcileResult result;
  result.findings = Analyze(spec, std::move(read->entries), options.statement, options.statement_period,
                            options.match_window_ms);
  result.findings.entries = read->total;
  const std::vector<ReleasedCopy> released =
      ApplyHolds(*holds, options.release_holds, result.findings, &result.unknown_releases);
  // The transaction rolls back: a dry run writes nothing, nor does a refused release.
  if (!options.apply || !result.unknown_releases.empty()) return result;

  for (Duplicate& dup : result.findings.duplicates) {
    auto reversed = ReverseCopies(**tx, spec, sql, options.actor, dup);
    if (!reversed.ok()) return reversed.status();
    result.reversed_now += *reversed;
  }
  IDEM_RETURN_IF_ERROR(
      RecordDecisions(**tx, spec, decisions, options.actor, options.source, released, result.findings));
  Status committed = (*tx)->Commit();
  if (!committed.ok()) {
    if (committed.IsInDoubt())
      return Rewrap(committed, "the commit of the reversals has an unknown outcome (" + committed.message() +
                                   "): run reconcile again without --apply to see whether they landed");
    return Rewrap(committed, "cannot commit the reversals (" + committed.message() + "): nothing was changed");
  }
  result.applied = true;
  return result;
}

int64_t Unresolved(const Findings& f) {
  int64_t n = static_cast<int64_t>(f.conflicts.size() + f.mismatches.size());
  for (const Duplicate& d : f.duplicates)
    for (const ExtraCopy& c : d.extra)
      n += c.state == CopyState::kOpen || c.state == CopyState::kHeld || c.state == CopyState::kNotCovered;
  return n;
}

ExitCode ExitCodeFor(const ReconcileResult& r) {
  if (Unresolved(r.findings) > 0) return kExitNeedsAttention;
  return r.reversed_now > 0 ? kExitRepaired : kExitClean;
}

}  // namespace idem::reconcile
