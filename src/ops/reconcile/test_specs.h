// Ledger descriptions the reconciliation unit tests share.
#pragma once

#include "ops/reconcile/ledger_spec.h"

namespace idem::reconcile::testing {

// flows(biz_no, amount_cents, user_id): the least a description needs.
inline LedgerSpec MinimalSpec() {
  LedgerSpec s;
  s.table = "flows";
  s.key_columns = {"biz_no"};
  s.amount_column = "amount_cents";
  s.account_column = "user_id";
  return s;
}

}  // namespace idem::reconcile::testing
