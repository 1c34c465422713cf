// The [reconcile] section of a TOML file: the ledger description that
// `idem reconcile --ledger FILE` reads (and that a service config can carry
// next to its other sections). Unknown keys are errors, so a typo never
// silently reconciles the wrong thing.
//
//   [reconcile]
//   store = "sqlite:payments.db"        # optional; --store wins
//   audit_table = "idem_reconcile_audit"
//   [reconcile.ledger]
//   table = "pay_account_flows"
//   key_columns = ["biz_no", "type"]
//   amount_column = "amount_cents"
//   account_column = "user_id"
//   time_column = "created_at_ms"       # optional
//   where = { type = "PAY_DEDUCT" }     # optional
//   copy_columns = []                   # optional
//   amount_unit = "minor"               # integer cents; "major" for a decimal column
//   amount_decimals = 2
//   bank_sign = "opposite"              # or "same" (the default)
//   reversal_marker = ":reversal:"
//   [reconcile.balance]                 # optional
//   table = "pay_accounts"
//   key_column = "user_id"
//   column = "balance_cents"
#pragma once

#include <string>
#include <string_view>

#include "idem/status.h"
#include "ops/reconcile/ledger_spec.h"

namespace idem::reconcile {

struct LedgerFile {
  LedgerSpec spec;    // not yet validated: flags may complete it
  std::string store;  // "" when the file names none
};

// InvalidArgument naming the file, the line and the key on bad input.
Result<LedgerFile> ParseLedgerToml(std::string_view text, const std::string& file_name);

}  // namespace idem::reconcile
