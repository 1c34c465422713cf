// pay.success: the handler of the incident, fixed. The order's CAS comes first,
// so a late or repeated event stops before any money moves; the ledger row
// comes before the balance, so a duplicate that slipped past the record stops
// at the unique (biz_no, type); the balance changes only if it suffices.
#include "payments/events.h"
#include "payments/handler_util.h"
#include "payments/order_states.h"
#include "payments/pay_success_set.h"

namespace idem::payments {

using namespace detail;

// The points grant and the notice as outgoing messages: they commit with the
// charge or not at all, and the relay publishes them after the commit.
std::optional<HandlerResult> detail::EmitPaySuccessDownstream(HandlerContext& ctx, const PaySuccess& ev) {
  const int64_t points = ev.amount_cents / 100;
  if (points > 0) {  // a payment under 1.00 earns nothing to grant
    Status s = ctx.Emit({kTopicPoints, ev.payment_id + "/" + kScenePay,
                         ToPayload(PointsGrant{ev.payment_id, kScenePay, ev.user_id, points}), {}});
    if (!s.ok()) return HandlerResult::FromStatus(s, "emit points.grant");
  }
  const std::string key = NoticeKey("PAY_SUCCESS", ev.payment_id);
  Status s = ctx.Emit({kTopicNotice, key, ToPayload(NoticeEvent{key, ev.user_id, ev.order_no, "PAY_SUCCESS"}), {}});
  if (!s.ok()) return HandlerResult::FromStatus(s, "emit notice.send");
  return std::nullopt;
}

HandlerSpec PaySuccessHandler(const ServiceOptions& options) {
  HandlerSpec spec;
  spec.topic = kTopicPaySuccess;
  spec.key.fields = {"payment_id"};
  spec.fn = [options](HandlerContext& ctx) -> HandlerResult {
    auto ev = ParsePaySuccess(ctx.payload);
    if (!ev.ok()) return HandlerResult::Permanent(ev.status().message());
    auto order = ReadOrder(ctx.tx, ev->order_no);
    if (!order.ok()) return HandlerResult::FromStatus(order.status(), "read order");
    if (!order->has_value()) return HandlerResult::Permanent("no order " + ev->order_no);
    if ((*order)->user_id != ev->user_id || (*order)->amount_cents != ev->amount_cents)
      return HandlerResult::Permanent("payment " + ev->payment_id + " does not match order " + ev->order_no +
                                      " (user or amount differs)");
    const int64_t now = ctx.env.NowMs();

    auto moved = OrderStates().Move(ctx.tx, ev->order_no, kPaid,
                                    {{"payment_id", ev->payment_id}, {"updated_at_ms", now}});
    if (!moved.ok()) return HandlerResult::FromStatus(moved.status(), "mark order paid");
    if (!moved->applied()) return NotApplied(*moved, kPaid, ev->order_no, options);

    auto flow = InsertOnce(ctx.tx, "pay_account_flows", PayFlowRow(*ev, now));
    if (!flow.ok()) return HandlerResult::FromStatus(flow.status(), "write ledger");
    if (*flow == InsertOutcome::kAlreadyApplied) {
      Log(options, "payment " + ev->payment_id + " already in the ledger (acknowledged, not charged again)");
      return HandlerResult::Ok("already charged: ledger holds " + ev->payment_id);
    }

    auto bal = ChangeBalance(ctx.tx, kAccountBalance, ev->user_id, -ev->amount_cents);
    if (!bal.ok()) return HandlerResult::FromStatus(bal.status(), "deduct balance");
    if (*bal == BalanceChange::kNotFound) return HandlerResult::Permanent("no account " + ev->user_id);
    if (*bal == BalanceChange::kInsufficient) {
      Log(options, "payment " + ev->payment_id + ": insufficient balance (retried later)");
      return HandlerResult::Retryable("insufficient balance: account " + ev->user_id + " has less than " +
                                      std::to_string(ev->amount_cents) + " cents; waiting for a top-up");
    }

    Status bank = options.downstream->ConfirmDebit(ctx.idempotency_key, ev->payment_id, ev->amount_cents);
    if (!bank.ok()) return HandlerResult::FromStatus(bank, "bank confirm");

    if (options.downstream_via_outbox) {
      if (auto failed = EmitPaySuccessDownstream(ctx, *ev)) return *failed;
      return Charged(*ev);
    }
    auto points = InsertOnce(ctx.tx, "pay_points", PointsRow(*ev, now));
    if (!points.ok()) return HandlerResult::FromStatus(points.status(), "grant points");

    if (auto failed = NoticeOnce(ctx, options, PaySuccessNotice(*ev, ""))) return *failed;
    return Charged(*ev);
  };
  spec.batch_fn = PaySuccessSet(options);
  return spec;
}

}  // namespace idem::payments
