// Reconciliation of a ledger: find the effects applied more than once, compare
// with a bank statement, and (only when asked) reverse the extra copies.
//
// The repair never updates or deletes a ledger entry: each extra copy gets a
// reversal entry with its own business key (derived from the original's, so a
// second run finds it and reverses nothing twice), the balance moves back in
// the same transaction, and an audit row records who, when, what and why.
// User guide: docs/operations.md (Reconciliation).
#pragma once

#include <cstdint>
#include <vector>

#include "idem/store.h"
#include "ops/reconcile/apply_reversals.h"
#include "ops/reconcile/findings.h"
#include "ops/reconcile/ledger_spec.h"
#include "ops/reconcile/statement_csv.h"

namespace idem::reconcile {

struct ReconcileOptions {
  const std::vector<StatementRow>* statement = nullptr;  // null: no comparison with the bank
  Period statement_period;  // what the statement covers; needs a time column unless it is all time. Default: all
  bool apply = false;       // false: a dry run, nothing is written. Default false.
  Actor actor;              // who applies, why, and the time stamped on reversals (used only with apply)
};

struct ReconcileResult {
  Findings findings;
  bool applied = false;
  int64_t reversed_now = 0;
};

// Reads the ledger in one transaction; with `apply`, reverses every open extra
// copy and commits, all or nothing. REQUIRES: Validate(spec) is OK.
// A failed commit whose outcome is unknown is IsInDoubt(): run again without
// --apply to see what landed.
Result<ReconcileResult> Reconcile(Store& store, const LedgerSpec& spec, const ReconcileOptions& options);

// What a daily job alerts on.
enum ExitCode : int {
  kExitClean = 0,  // nothing found (or everything found was reversed before)
  kExitNeedsAttention =
      1,              // something found is not repaired: a dry run's duplicates, conflicts, mismatches, held copies
  kExitUsage = 2,     // bad command line or ledger description: nothing was read
  kExitRepaired = 3,  // --apply reversed duplicates and nothing else is left: tell the people who own the accounts
  kExitFailed = 4,    // the run failed (database, statement file): nothing was changed
};

// How many findings still need a person (open or held copies, conflicts, mismatches).
int64_t Unresolved(const Findings& f);
ExitCode ExitCodeFor(const ReconcileResult& r);

}  // namespace idem::reconcile
