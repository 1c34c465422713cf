#include "ops/reconcile/apply_reversals.h"

#include "ops/reconcile/amount.h"
#include "ops/reconcile/rewrap_status.h"

namespace idem::reconcile {
namespace {

Status Failed(const std::string& what, const Status& s) {
  return Rewrap(s, what + ": " + s.message() + " (nothing was changed: the whole run rolled back)");
}

// An amount to bind for the ledger's amount or balance column.
Value AmountValue(const LedgerSpec& spec, int64_t minor) {
  if (spec.amount_unit == AmountUnit::kMinor) return minor;
  return FormatAmount(minor, spec.amount_decimals);  // "199.00": the column's own type reads it exactly
}

// The business key of a copy's reversal entry: the original's, with the first
// column replaced.
std::vector<Value> ReversalKey(const Duplicate& dup, const ExtraCopy& copy) {
  std::vector<Value> key;
  key.emplace_back(copy.reversal_key);
  for (size_t i = 1; i < dup.key.size(); ++i) key.emplace_back(dup.key[i]);
  return key;
}

Result<int64_t> ReverseOne(SqlTx& tx, const LedgerSpec& spec, const LedgerSql& sql, const Actor& actor,
                           const Duplicate& dup, ExtraCopy& copy) {
  const std::string what = "reversing copy " + std::to_string(copy.ordinal) + " of " + KeyText(dup.key);
  if (spec.HasBalance()) {
    // Taken first: a concurrent run of reconcile waits here, then sees our reversal below.
    auto locked = tx.Query(sql.lock_balance, {dup.account});
    if (!locked.ok()) return Failed(what + ": cannot read the balance", locked.status());
    if (locked->empty())
      return Status::NotFound(what + ": account " + dup.account + " has no row in " + spec.balance_table + "." +
                              spec.balance_key_column +
                              " (nothing was changed: fix the balance table or leave "
                              "the balance out of the description)");
  }
  const std::vector<Value> reversal_key = ReversalKey(dup, copy);
  auto existing = tx.Query(sql.count_key, reversal_key);
  if (!existing.ok()) return Failed(what, existing.status());
  if (AsInt((*existing)[0][0]) > 0) {
    copy.state = CopyState::kReversedBefore;
    return int64_t{0};
  }

  std::vector<Value> row = reversal_key;
  row.push_back(AmountValue(spec, -dup.amount));
  row.emplace_back(dup.account);
  if (!spec.time_column.empty()) row.emplace_back(actor.now_ms);
  if (!sql.select_copied.empty()) {
    std::vector<Value> params(dup.key.begin(), dup.key.end());
    for (const auto& w : spec.where) params.emplace_back(w.second);
    auto copied = tx.Query(sql.select_copied, params);
    if (!copied.ok()) return Failed(what + ": cannot read the columns to copy", copied.status());
    if (copied->empty()) return Status::NotFound(what + ": the original entry is gone (nothing was changed)");
    row.insert(row.end(), copied->front().begin(), copied->front().end());
  }
  auto inserted = tx.Exec(sql.insert_reversal, row);
  if (!inserted.ok()) return Failed(what + ": cannot write the reversal entry", inserted.status());

  if (spec.HasBalance()) {
    auto moved = tx.Exec(sql.update_balance, {AmountValue(spec, -dup.amount), dup.account});
    if (!moved.ok()) return Failed(what + ": cannot restore the balance", moved.status());
    if (*moved != 1)
      return Status::Permanent(what + ": the balance update changed " + std::to_string(*moved) + " rows of " +
                               spec.balance_table + ", not 1: " + spec.balance_key_column +
                               " must identify one account (nothing was changed)");
  }

  // The audit table keeps its columns (older tables stay writable): how the
  // operator was established goes with the reason, as "… [os account (uid 1000)]".
  std::string reason = actor.reason.empty() ? "duplicate application of " + KeyText(dup.key) : actor.reason;
  if (!actor.authenticated_by.empty()) reason += " [" + actor.authenticated_by + "]";
  auto audited = tx.Exec(sql.insert_audit, {actor.now_ms, actor.name, std::string("reverse_duplicate"), spec.table,
                                            KeyText(dup.key), copy.reversal_key, dup.account, -dup.amount, reason});
  if (!audited.ok()) {
    if (audited.status().IsAlreadyExists())
      return Status::TransactionConflict(what +
                                         ": another run recorded this reversal at the same time (nothing "
                                         "was changed by this run: run reconcile again to see the result)");
    return Failed(what + ": cannot write the audit row", audited.status());
  }
  copy.state = CopyState::kReversedNow;
  return int64_t{1};
}

}  // namespace

Result<int64_t> ReverseCopies(SqlTx& tx, const LedgerSpec& spec, const LedgerSql& sql, const Actor& actor,
                              Duplicate& dup) {
  int64_t reversed = 0;
  for (ExtraCopy& copy : dup.extra) {
    if (copy.state != CopyState::kOpen) continue;
    auto one = ReverseOne(tx, spec, sql, actor, dup, copy);
    if (!one.ok()) return one.status();
    reversed += *one;
  }
  return reversed;
}

}  // namespace idem::reconcile
