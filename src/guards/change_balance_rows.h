// ChangeBalance for many keys at once: the set-based form a batch of messages
// uses (the declarative change_balance step or a handler's batch_fn over a
// whole batch).
#pragma once

#include <cstdint>
#include <vector>

#include "idem/guards.h"

namespace idem::guards {

struct BalanceDelta {
  Value key;
  int64_t delta = 0;  // never 0, as for ChangeBalance
};

struct BalancesChanged {
  int64_t keys = 0;     // distinct keys among the deltas
  int64_t changed = 0;  // rows the statements changed: `keys` when every key was applied

  bool all() const { return changed == keys; }
};

// Applies `deltas` to `where` in conditional UPDATEs of up to 128 keys each
// (a CASE per key; the check and the change in one statement, as
// ChangeBalance). Several deltas of one key are summed, and the
// key changes only when applying them one by one, in order, would never have
// taken it below `floor`; otherwise that key is left alone. Which keys were
// left alone (short or missing) is not reported: a caller that gets
// !all() rolls back to its savepoint and runs ChangeBalance one by one.
// REQUIRES: every delta != 0 (InvalidArgument otherwise).
Result<BalancesChanged> ChangeBalances(SqlTx& tx, const BalanceColumn& where, const std::vector<BalanceDelta>& deltas,
                                       int64_t floor = 0);

}  // namespace idem::guards
