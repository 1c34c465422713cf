// What earlier --apply runs decided, brought to bear on this run, and what
// this run decided, recorded (the table: decisions_table.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "idem/sql.h"
#include "ops/reconcile/apply_reversals.h"
#include "ops/reconcile/decisions_table.h"
#include "ops/reconcile/findings.h"

namespace idem::reconcile {

// The holds in force: business key text → copy ordinal → the hold.
using Holds = std::map<std::string, std::map<int, EarlierHold>>;

// Reads them; a missing table (a dry run before the first --apply) holds nothing.
Result<Holds> ReadHolds(SqlTx& tx, const LedgerSpec& spec, const DecisionsSql& sql);

struct ReleasedCopy {
  std::vector<std::string> key;
  int ordinal = 2;
  EarlierHold hold;  // the one released
};

// Marks every copy that `holds` holds kHeldBefore (a reversal entry, which is
// the ledger's own record, still wins), except those of the keys a person
// released: they are judged afresh by this run. `released_keys` name a key as
// KeyText (P1/PAY_DEDUCT) or by its first column (P1); those that hold nothing
// go to `unknown`, so that a typo is refused rather than taken for a release.
std::vector<ReleasedCopy> ApplyHolds(const Holds& holds, const std::vector<std::string>& released_keys,
                                     Findings& findings, std::vector<std::string>* unknown);

// Where this run's evidence came from, for the recorded rows.
struct EvidenceSource {
  std::string statement;  // the statement file, "" without one
  std::string period;     // the period it covers, "" for all time
};

// One row per released copy, per copy held on this run's statement and per
// copy reversed now. Inside the caller's transaction.
Status RecordDecisions(SqlTx& tx, const LedgerSpec& spec, const DecisionsSql& sql, const Actor& actor,
                       const EvidenceSource& source, const std::vector<ReleasedCopy>& released,
                       const Findings& findings);

}  // namespace idem::reconcile
