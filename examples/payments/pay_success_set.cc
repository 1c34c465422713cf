// pay.success for a batch: the same steps as the one-message handler, in the
// same order (the CAS before any money, the ledger before the balance), each
// one statement for the whole set. It only takes the plain happy path: an
// order missing, mismatched or not WAIT_PAY, a ledger row already there, a
// balance short, a downstream failure, or two events of one order or payment
// in the set make it fail as a whole, and the pipeline rolls back what it
// wrote and runs each payment alone through the one-message handler, which
// keeps every outcome and log line of its own.
#include "payments/pay_success_set.h"

#include <map>
#include <set>

#include "guards/change_balance_rows.h"
#include "guards/insert_once_rows.h"
#include "guards/sql_identifier.h"
#include "payments/handler_util.h"
#include "payments/order_states.h"
#include "store/set_shape.h"

namespace idem::payments::detail {
namespace {

// Far above a batch; a larger set is left to the one-message handler rather
// than split, as one IN list must fit the engine's parameter limit.
constexpr size_t kMaxSet = 10000;

struct Payment {
  HandlerContext* ctx;
  PaySuccess ev;
  int64_t now_ms;
};

// nullopt: the step applied to every payment; otherwise why the set falls back.
using Failed = std::optional<std::string>;

Failed ParseAll(std::span<HandlerContext* const> all, std::vector<Payment>* out) {
  std::set<std::string> orders, payments;
  for (HandlerContext* ctx : all) {
    auto ev = ParsePaySuccess(ctx->payload);
    if (!ev.ok()) return ev.status().message();
    if (!orders.insert(ev->order_no).second || !payments.insert(ev->payment_id).second)
      return "two events of order " + ev->order_no + " or payment " + ev->payment_id + " in one set";
    out->push_back({ctx, std::move(*ev), ctx->env.NowMs()});
  }
  return std::nullopt;
}

// Every order exists, matches its payment and waits for it.
Failed CheckOrders(SqlTx& tx, const std::vector<Payment>& set) {
  std::vector<Value> keys;
  for (const Payment& p : set) keys.emplace_back(p.ev.order_no);
  PadToSetShape(keys);  // a repeated order number reads no other row
  auto rows = tx.Query("SELECT order_no, user_id, amount_cents, status FROM pay_orders WHERE order_no IN (" +
                           guards::ParameterMarkers(keys.size()) + ")",
                       keys);
  if (!rows.ok()) return "read orders: " + rows.status().ToString();
  std::map<std::string, const Row*> by_no;
  for (const Row& r : *rows) by_no[AsText(r[0])] = &r;
  for (const Payment& p : set) {
    auto it = by_no.find(p.ev.order_no);
    if (it == by_no.end()) return "no order " + p.ev.order_no;
    const Row& r = *it->second;
    if (AsText(r[1]) != p.ev.user_id || AsInt(r[2]) != p.ev.amount_cents || AsText(r[3]) != kWaitPay)
      return "order " + p.ev.order_no + " is not a matching WAIT_PAY order";
  }
  return std::nullopt;
}

Failed MarkPaid(SqlTx& tx, const std::vector<Payment>& set) {
  std::vector<StateMachine::RowMove> moves;
  for (const Payment& p : set)
    moves.push_back({p.ev.order_no, {{"payment_id", p.ev.payment_id}, {"updated_at_ms", p.now_ms}}});
  auto n = OrderStates().MoveRows(tx, moves, kPaid);
  if (!n.ok()) return "mark orders paid: " + n.status().ToString();
  if (*n != static_cast<int64_t>(set.size())) return "an order moved before it was marked paid";
  return std::nullopt;
}

Failed ChargeAll(SqlTx& tx, const std::vector<Payment>& set) {
  std::vector<std::vector<Column>> flows;
  std::vector<guards::BalanceDelta> deltas;
  for (const Payment& p : set) {
    flows.push_back(PayFlowRow(p.ev, p.now_ms));
    deltas.push_back({p.ev.user_id, -p.ev.amount_cents});
  }
  auto written = guards::InsertOnceRows(tx, "pay_account_flows", flows);
  if (!written.ok()) return "write ledger: " + written.status().ToString();
  if (*written != static_cast<int64_t>(set.size())) return "a payment is in the ledger already";
  auto changed = guards::ChangeBalances(tx, kAccountBalance, deltas);
  if (!changed.ok()) return "deduct balances: " + changed.status().ToString();
  if (!changed->all()) return "an account is missing or short";
  return std::nullopt;
}

// Points and notices in the payment's own transaction (without the outbox).
Failed GrantAndNotify(const ServiceOptions& options, const std::vector<Payment>& set) {
  SqlTx& tx = set.front().ctx->tx;
  std::vector<std::vector<Column>> points, notices;
  for (const Payment& p : set) points.push_back(PointsRow(p.ev, p.now_ms));
  // A points row already there is granted already, as for the one-message
  // handler, so any count is fine; a failure is not.
  auto granted = guards::InsertOnceRows(tx, "pay_points", points);
  if (!granted.ok()) return "grant points: " + granted.status().ToString();
  std::vector<Notice> sends;
  for (const Payment& p : set) {
    sends.push_back(PaySuccessNotice(p.ev, p.ctx->idempotency_key));
    notices.push_back(NoticeRow(sends.back(), p.ctx->env.NowMs()));
  }
  // A notice recorded before was sent before: which one is not known here.
  auto recorded = guards::InsertOnceRows(tx, "pay_notifications", notices);
  if (!recorded.ok()) return "record notices: " + recorded.status().ToString();
  if (*recorded != static_cast<int64_t>(set.size())) return "a notice was recorded before";
  for (const Notice& n : sends) {
    Status s = options.downstream->SendNotice(n);
    if (!s.ok()) return "send notice: " + s.ToString();
  }
  return std::nullopt;
}

Failed RunSet(const ServiceOptions& options, std::span<HandlerContext* const> all, std::vector<Payment>& set) {
  if (all.empty() || all.size() > kMaxSet) return "a set of " + std::to_string(all.size()) + " payments";
  SqlTx& tx = all.front()->tx;
  if (Failed f = ParseAll(all, &set)) return f;
  if (Failed f = CheckOrders(tx, set)) return f;
  if (Failed f = MarkPaid(tx, set)) return f;
  if (Failed f = ChargeAll(tx, set)) return f;
  for (const Payment& p : set) {
    Status bank = options.downstream->ConfirmDebit(p.ctx->idempotency_key, p.ev.payment_id, p.ev.amount_cents);
    if (!bank.ok()) return "bank confirm: " + bank.ToString();
  }
  if (!options.downstream_via_outbox) return GrantAndNotify(options, set);
  for (const Payment& p : set)
    if (auto failed = EmitPaySuccessDownstream(*p.ctx, p.ev)) return failed->reason;
  return std::nullopt;
}

}  // namespace

BatchHandlerFn PaySuccessSet(const ServiceOptions& options) {
  return [options](std::span<HandlerContext* const> all) {
    std::vector<Payment> set;
    if (Failed f = RunSet(options, all, set))
      return std::vector<HandlerResult>(all.size(), HandlerResult::Retryable("set-based run fell back: " + *f));
    std::vector<HandlerResult> out;
    for (const Payment& p : set) out.push_back(Charged(p.ev));
    return out;
  };
}

}  // namespace idem::payments::detail
