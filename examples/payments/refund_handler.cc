// pay.refund: keyed by refund_id, a different action on the same payment than
// pay.success, so it never shares a key with it.
#include "payments/events.h"
#include "payments/handler_util.h"
#include "payments/order_states.h"

namespace idem::payments {

using namespace detail;

HandlerSpec RefundHandler(const ServiceOptions& options) {
  HandlerSpec spec;
  spec.topic = kTopicRefund;
  spec.key.fields = {"refund_id"};
  spec.fn = [options](HandlerContext& ctx) -> HandlerResult {
    auto ev = ParseRefund(ctx.payload);
    if (!ev.ok()) return HandlerResult::Permanent(ev.status().message());
    auto order = ReadOrder(ctx.tx, ev->order_no);
    if (!order.ok()) return HandlerResult::FromStatus(order.status(), "read order");
    if (!order->has_value()) return HandlerResult::Permanent("no order " + ev->order_no);
    if ((*order)->user_id != ev->user_id || (*order)->amount_cents != ev->amount_cents)
      return HandlerResult::Permanent("refund " + ev->refund_id + " does not match order " + ev->order_no +
                                      " (user or amount differs; only full refunds are supported)");
    const int64_t now = ctx.env.NowMs();

    auto moved = OrderStates().Move(ctx.tx, ev->order_no, kRefunded, {{"updated_at_ms", now}});
    if (!moved.ok()) return HandlerResult::FromStatus(moved.status(), "mark order refunded");
    if (!moved->applied()) return NotApplied(*moved, kRefunded, ev->order_no, options);

    auto flow = InsertOnce(ctx.tx, "pay_account_flows",
                           {{"biz_no", ev->refund_id},
                            {"type", kFlowRefund},
                            {"user_id", ev->user_id},
                            {"amount_cents", ev->amount_cents},
                            {"created_at_ms", now}});
    if (!flow.ok()) return HandlerResult::FromStatus(flow.status(), "write ledger");
    if (*flow == InsertOutcome::kAlreadyApplied) return HandlerResult::Ok("already refunded: ledger holds " + ev->refund_id);

    auto bal = ChangeBalance(ctx.tx, kAccountBalance, ev->user_id, ev->amount_cents);
    if (!bal.ok()) return HandlerResult::FromStatus(bal.status(), "credit balance");
    if (*bal != BalanceChange::kApplied) return HandlerResult::Permanent("no account " + ev->user_id);

    if (auto failed = NoticeOnce(ctx, options,
                                 {"", NoticeKey("REFUND", ev->refund_id), ev->user_id, ev->order_no, "REFUND"}))
      return *failed;
    return HandlerResult::Ok("refunded " + std::to_string(ev->amount_cents) + " cents to " + ev->user_id);
  };
  return spec;
}

}  // namespace idem::payments
