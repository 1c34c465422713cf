// LedgerSpec: what `idem reconcile` needs to know about a ledger it did not
// create — which table holds the entries, which columns make an entry's
// business key, where the amount and the account are, and which balance the
// entries move.
//
// Every table and column name comes from the operator (flags or the
// [reconcile] section of a TOML file), never from data; Validate() accepts only
// plain identifiers, and the SQL quotes each one for its dialect as well.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "idem/status.h"

namespace idem::reconcile {

// How a bank statement's amount relates to the ledger's amount for one entry.
enum class BankSign {
  kSame,      // the statement lists a charge recorded as -199.00 as -199.00
  kOpposite,  // the statement lists it as 199.00 (the bank's view of the same money)
};

// How the ledger's amount (and balance) columns hold money.
enum class AmountUnit {
  kMinor,  // integers in minor units: 199.00 is 19900 (BIGINT amount_cents)
  kMajor,  // decimals: 199.00 is 199.00 (NUMERIC(12,2), DECIMAL amount)
};

struct LedgerSpec {
  std::string table;                     // the ledger (one row per applied effect)
  std::vector<std::string> key_columns;  // the business key; a bank statement names the first one
  std::string amount_column;             // signed as the balance moves; see amount_unit
  std::string account_column;            // the account the entry belongs to
  std::string time_column;               // optional: ms since the epoch; orders copies, stamps reversals
  // Optional equality filters (column = value), e.g. type = PAY_DEDUCT: only
  // these entries are reconciled. Values are bound, never spliced.
  std::vector<std::pair<std::string, std::string>> where;
  // Columns copied from the original entry into its reversal, besides the key,
  // account and amount (which the reversal always carries).
  std::vector<std::string> copy_columns;

  // Optional: the balance the entries move. A reversal adds -amount to it.
  std::string balance_table;
  std::string balance_key_column;  // matches account_column's value
  std::string balance_column;      // in the same unit as the amount

  AmountUnit amount_unit = AmountUnit::kMinor;  // Default: integer minor units.
  int amount_decimals = 2;                      // digits after the point: 199.00 is 19900 minor units. Default 2.
  BankSign bank_sign = BankSign::kSame;
  // A reversal's key is the original's first key column + marker + the copy's
  // ordinal (2 for the second application): P20260928001:reversal:2.
  std::string reversal_marker = ":reversal:";
  std::string audit_table = "idem_reconcile_audit";
  // What each --apply decided per copy (held, reversed, released) and why, so
  // a later run keeps a hold made on evidence it no longer sees.
  std::string decisions_table = "idem_reconcile_decisions";

  bool HasBalance() const { return !balance_table.empty(); }
};

// OK, or InvalidArgument naming the first missing or malformed setting and how
// to give it (flag and TOML key).
Status Validate(const LedgerSpec& spec);

// "pay_account_flows (key biz_no, type; where type = PAY_DEDUCT)": for reports.
std::string Describe(const LedgerSpec& spec);

}  // namespace idem::reconcile
