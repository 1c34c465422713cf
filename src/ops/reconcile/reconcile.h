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
#include "ops/reconcile/decisions.h"
#include "ops/reconcile/findings.h"
#include "ops/reconcile/ledger_spec.h"
#include "ops/reconcile/statement_csv.h"

namespace idem::reconcile {

struct ReconcileOptions {
  const std::vector<StatementRow>* statement = nullptr;  // null: no comparison with the bank
  Period statement_period;  // what the statement covers; needs a time column unless it is all time. Default: all
  // How far a bank movement may lie from its ledger copy. Default 72 h.
  int64_t match_window_ms = kDefaultMatchWindowMs;
  EvidenceSource source;    // the statement's file and period as recorded with each decision
  // Keys (KeyText or first column) whose earlier holds a person releases: this
  // run judges their copies afresh and, with apply, records the release.
  std::vector<std::string> release_holds;
  bool apply = false;       // false: a dry run, nothing is written. Default false.
  Actor actor;              // who applies, why, and the time stamped on reversals (used only with apply)
};

struct ReconcileResult {
  Findings findings;
  bool applied = false;
  int64_t reversed_now = 0;
  // Keys of release_holds that no earlier run held: the run stopped there and
  // changed nothing (a usage error for the command line).
  std::vector<std::string> unknown_releases;
};

// Reads the ledger and the earlier decisions in one transaction; with
// `apply`, reverses every open extra copy, records what it decided (held,
// reversed, released) and commits, all or nothing. A copy an earlier run held
// stays held unless its key is in `release_holds`; one that names a key with
// no hold stops the run before it writes (unknown_releases). REQUIRES:
// Validate(spec) is OK.
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

// How many findings still need a person (open, newly held or not covered
// copies, conflicts, mismatches). A hold made by an earlier run was handed to
// a person then: it is no longer a finding.
int64_t Unresolved(const Findings& f);
ExitCode ExitCodeFor(const ReconcileResult& r);

}  // namespace idem::reconcile
