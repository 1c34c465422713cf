#include "harness/verify_run.h"

#include "demo/payments_checks.h"
#include "payments/events.h"

namespace idem::bench {
namespace {

class Checker {
 public:
  explicit Checker(RunResult* r) : r_(r) {}
  void Equal(const std::string& what, int64_t found, int64_t expected) {
    if (found == expected) {
      r_->checks_passed.push_back(what + " = " + std::to_string(expected));
    } else {
      r_->check_failures.push_back(what + ": found " + std::to_string(found) + ", expected " +
                                   std::to_string(expected));
    }
  }
  void Failed(const std::string& what, const Status& s) { r_->check_failures.push_back(what + ": " + s.ToString()); }

 private:
  RunResult* r_;
};

Result<int64_t> QueryInt(Store& store, const std::string& sql, const std::vector<Value>& params = {}) {
  auto tx = store.Begin();
  if (!tx.ok()) return tx.status();
  auto rows = (*tx)->Query(sql, params);
  (*tx)->Rollback();
  if (!rows.ok()) return rows.status();
  if (rows->empty() || rows->front().empty()) return Status::NotFound("no row from [" + sql + "]");
  return AsInt(rows->front().front());
}

}  // namespace

void VerifyEffects(Store& store, const RunFacts& f, RunResult* result) {
  Checker c(result);
  const int64_t payments = f.history + f.unique;
  auto db = [&](const std::string& what, const std::string& sql, int64_t expected,
                const std::vector<Value>& params = {}) {
    auto n = QueryInt(store, sql, params);
    if (!n.ok()) c.Failed(what, n.status());
    else c.Equal(what, *n, expected);
  };
  const std::string pay = payments::kFlowPay;
  db("ledger PAY_DEDUCT rows", "SELECT COUNT(*) FROM pay_account_flows WHERE type = ?", payments, {pay});
  // The same reading of the ledger as the demo's and the simulator's checkers.
  auto effects = demo::ReadEffectRows(store);
  if (!effects.ok()) c.Failed("payments charged more than once", effects.status());
  else c.Equal("payments charged more than once", effects->DoubleCharges(), 0);
  db("orders PAID", "SELECT COUNT(*) FROM pay_orders WHERE status = 'PAID'", payments);
  db("points rows", "SELECT COUNT(*) FROM pay_points", payments);
  db("notice rows", "SELECT COUNT(*) FROM pay_notifications", payments);
  db("cents taken from accounts", "SELECT COALESCE(SUM(opening_cents - balance_cents), 0) FROM pay_accounts",
     f.unique_amount_cents);
  if (f.guarded)
    db("SUCCEEDED records", "SELECT COUNT(*) FROM idem_records WHERE consumer_group = ? AND status = 'SUCCEEDED'",
       payments, {f.consumer_group});
}

void VerifyRun(Store& store, const RunFacts& f, RunResult* result) {
  VerifyEffects(store, f, result);
  Checker c(result);
  c.Equal("payments handler runs", f.business_runs, f.unique);
  c.Equal("bank debits", f.bank_debits, f.unique);
  c.Equal("messages acked", f.settled.acked, f.messages);
  c.Equal("messages parked, retried or released", f.settled.parked + f.settled.retried + f.settled.released, 0);
  if (f.guarded) {
    c.Equal("FIRST decisions", f.decided_first, f.unique);
    c.Equal("DUPLICATE decisions", f.decided_duplicate, f.messages - f.unique);
  } else {
    c.Equal("copies skipped by the oracle", f.oracle_skips, f.messages - f.unique);
  }
}

}  // namespace idem::bench
