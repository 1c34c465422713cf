// --apply: one reversal entry per open extra copy, the balance moved back and
// an audit row, all in the caller's transaction — never an UPDATE or DELETE of
// an existing ledger entry.
#pragma once

#include <cstdint>
#include <string>

#include "idem/sql.h"
#include "ops/reconcile/findings.h"
#include "ops/reconcile/ledger_sql.h"

namespace idem::reconcile {

struct Actor {
  std::string name;              // who: the operator as established, never a typed name
  std::string authenticated_by;  // how: "operator secret", "os account (uid N)"
  std::string reason;            // why; "" → "duplicate application of <key>"
  int64_t now_ms = 0;            // when
};

// Reverses every kOpen copy of `dup` and marks it kReversedNow (or
// kReversedBefore when a concurrent run got there first). Returns how many were
// reversed. On error the caller must roll the transaction back.
Result<int64_t> ReverseCopies(SqlTx& tx, const LedgerSpec& spec, const LedgerSql& sql, const Actor& actor,
                              Duplicate& dup);

}  // namespace idem::reconcile
