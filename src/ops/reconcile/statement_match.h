// A bank statement against the ledger, one movement to one copy: each row of
// the statement takes one ledger copy of its key (the first key column) —
// the nearest in time of the same amount inside the match window, else the
// nearest of any amount inside it (an amount that differs). What is left over is judged
// by the period: inside it, the other side is missing; outside it, the
// statement does not cover it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ops/reconcile/findings.h"

namespace idem::reconcile {

enum class BankEvidence {
  kMatched,     // a statement row is this copy's movement
  kUnmatched,   // inside the period, and the bank did not move it
  kNotCovered,  // outside the period, and no row matched it
};

struct StatementMatch {
  // Per ledger key, per copy in the order of `groups`. A first copy inside
  // the period is kMatched whenever any of its copies is: copies are alike,
  // and the first one is the real one.
  std::map<std::vector<std::string>, std::vector<BankEvidence>> copies;
  std::vector<Mismatch> mismatches;  // by key
  int64_t rows_not_covered = 0;      // rows outside the period that matched nothing
};

// `groups`: the ledger's entries by key, each oldest first (reversals left out).
StatementMatch MatchStatement(const LedgerSpec& spec,
                              const std::map<std::vector<std::string>, std::vector<LedgerEntry>>& groups,
                              const std::vector<StatementRow>& statement, const Period& period, int64_t window_ms);

// The ledger's amount as the bank writes it.
int64_t InBankSign(const LedgerSpec& spec, int64_t ledger_amount);

}  // namespace idem::reconcile
