#include "ops/reconcile/reconcile.h"

#include "ops/reconcile/ledger_read.h"
#include "ops/reconcile/ledger_sql.h"
#include "ops/reconcile/rewrap_status.h"

namespace idem::reconcile {

Result<ReconcileResult> Reconcile(Store& store, const LedgerSpec& spec, const ReconcileOptions& options) {
  if (!options.statement_period.IsAll() && spec.time_column.empty())
    return Status::InvalidArgument(
        "a statement period needs the ledger's time column: give --time-column or "
        "ledger.time_column");
  const LedgerSql sql(spec, store.Dialect());
  if (options.apply) {
    Status created = store.ExecScript(sql.create_audit);
    if (!created.ok())
      return Rewrap(created, "cannot create the audit table " + spec.audit_table + ": " + created.message());
  }
  auto tx = store.Begin();
  if (!tx.ok()) return Rewrap(tx.status(), "cannot start a transaction: " + tx.status().message());
  auto read = ReadLedger(**tx, spec, sql, options.statement != nullptr, options.statement_period);
  if (!read.ok()) return read.status();

  ReconcileResult result;
  result.findings = Analyze(spec, std::move(read->entries), options.statement, options.statement_period);
  result.findings.entries = read->total;
  if (!options.apply) return result;  // the transaction rolls back: a dry run writes nothing

  for (Duplicate& dup : result.findings.duplicates) {
    auto reversed = ReverseCopies(**tx, spec, sql, options.actor, dup);
    if (!reversed.ok()) return reversed.status();
    result.reversed_now += *reversed;
  }
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
    for (const ExtraCopy& c : d.extra) n += c.state == CopyState::kOpen || c.state == CopyState::kHeld;
  return n;
}

ExitCode ExitCodeFor(const ReconcileResult& r) {
  if (Unresolved(r.findings) > 0) return kExitNeedsAttention;
  return r.reversed_now > 0 ? kExitRepaired : kExitClean;
}

}  // namespace idem::reconcile
