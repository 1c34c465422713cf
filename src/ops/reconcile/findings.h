// What reconciliation finds in a ledger, computed from the entries alone (and a
// bank statement when given) — no database access, so every rule is unit-tested.
//
//   duplicate   one business key applied more than once with the same account
//               and amount: every copy after the first is to be reversed.
//   conflict    one business key with entries that differ (account or amount),
//               or a reversal with no copy to reverse: a person must look.
//   mismatch    against the statement, per movement: each bank row is matched
//               to one ledger copy of its key (the first key column) of the
//               same amount inside the match window, else to one of another
//               amount (amount differs); a row left over is missing in the
//               ledger, a key's first copy left over in the period is missing
//               at the bank. Extra copies left over are the duplicate's open
//               copies, not mismatches. Whatever lies outside the period and
//               matched nothing is not covered by the statement: never a
//               mismatch, never reversed on its evidence.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ops/reconcile/ledger_spec.h"
#include "ops/reconcile/period.h"
#include "ops/reconcile/statement_csv.h"

namespace idem::reconcile {

struct LedgerEntry {
  std::vector<std::string> key;  // one value per key column
  int64_t amount = 0;
  std::string account;
  int64_t time_ms = 0;  // 0 without a time column
};

// The state of one extra copy (the 2nd, 3rd, … application of a key).
enum class CopyState {
  kOpen,            // not reversed; --apply reverses it
  kReversedBefore,  // its reversal entry is already in the ledger
  kReversedNow,     // reversed by this run
  kHeld,            // the bank statement shows this charge too: not a ledger error, not reversed
  kHeldBefore,      // an earlier --apply held it on its statement's evidence: stays held until released
  kNotCovered,      // outside the statement's period and not on it: the statement cannot judge it
};
// "open", "reversed_before", "reversed_now", "held", "held_before", "not_covered"
const char* CopyStateName(CopyState s);
inline constexpr CopyState kAllCopyStates[] = {CopyState::kOpen,       CopyState::kReversedBefore,
                                               CopyState::kReversedNow, CopyState::kHeld,
                                               CopyState::kHeldBefore, CopyState::kNotCovered};

// The hold an earlier run recorded (decisions_table.h).
struct EarlierHold {
  int64_t at_ms = 0;
  std::string operator_name;
  std::string evidence;
};

struct ExtraCopy {
  int ordinal = 2;           // 2 for the second application
  std::string reversal_key;  // the reversal's first key column: P20260928001:reversal:2
  CopyState state = CopyState::kOpen;
  std::optional<EarlierHold> held_before;  // with kHeldBefore
};

struct Duplicate {
  std::vector<std::string> key;
  std::string account;
  int64_t amount = 0;             // of each copy
  std::vector<int64_t> times_ms;  // of each copy, oldest first (empty without a time column)
  int bank_movements = -1;        // statement rows matched to its copies; -1 without a statement
  std::vector<ExtraCopy> extra;   // ordinal 2 .. copies
  int copies() const { return static_cast<int>(extra.size()) + 1; }
};

struct Conflict {
  std::vector<std::string> key;
  std::string what;  // a sentence for the report
};

enum class MismatchKind { kMissingInLedger, kMissingAtBank, kAmountDiffers };
const char* MismatchKindName(MismatchKind k);  // "missing_in_ledger", "missing_at_bank", "amount_differs"

struct Mismatch {
  MismatchKind kind = MismatchKind::kAmountDiffers;
  std::string key;                // the first key column's value
  std::optional<int64_t> ledger;  // the ledger's net amount, in the bank's sign
  std::optional<int64_t> bank;    // the statement's total for the key
  std::string bank_time;          // of the statement's row
  int line = 0;                   // the statement's line, 0 for missing at bank
};

struct Findings {
  std::vector<Duplicate> duplicates;
  std::vector<Conflict> conflicts;
  std::vector<Mismatch> mismatches;
  int64_t entries = 0;    // ledger entries inside the filter (reversals included)
  int64_t reversals = 0;  // of them, reversal entries
  int64_t rows_not_covered = 0;  // statement rows outside the period that matched no entry
};

// How far apart a bank movement and its ledger copy may be: a movement the bank
// books a day or two late still matches. Default 72 h.
inline constexpr int64_t kDefaultMatchWindowMs = 72 * 3'600'000LL;

// `entries` in any order. `statement` null when there is none; `period` is
// what it covers (all time by default).
Findings Analyze(const LedgerSpec& spec, std::vector<LedgerEntry> entries, const std::vector<StatementRow>* statement,
                 const Period& period = {}, int64_t match_window_ms = kDefaultMatchWindowMs);

// "P20260928001/PAY_DEDUCT": a key for people.
std::string KeyText(const std::vector<std::string>& key);

}  // namespace idem::reconcile
