// account.topup: money in. The ledger row makes it once per topup_id.
#include "payments/events.h"
#include "payments/handler_util.h"

namespace idem::payments {

using namespace detail;

HandlerSpec TopUpHandler(const ServiceOptions& options) {
  HandlerSpec spec;
  spec.topic = kTopicTopUp;
  spec.key.fields = {"topup_id"};
  spec.fn = [options](HandlerContext& ctx) -> HandlerResult {
    auto ev = ParseTopUp(ctx.payload);
    if (!ev.ok()) return HandlerResult::Permanent(ev.status().message());
    auto flow = InsertOnce(ctx.tx, "pay_account_flows",
                           {{"biz_no", ev->topup_id},
                            {"type", kFlowTopUp},
                            {"user_id", ev->user_id},
                            {"amount_cents", ev->amount_cents},
                            {"created_at_ms", ctx.env.NowMs()}});
    if (!flow.ok()) return HandlerResult::FromStatus(flow.status(), "write ledger");
    if (*flow == InsertOutcome::kAlreadyApplied) return HandlerResult::Ok("already credited: ledger holds " + ev->topup_id);
    auto bal = ChangeBalance(ctx.tx, kAccountBalance, ev->user_id, ev->amount_cents);
    if (!bal.ok()) return HandlerResult::FromStatus(bal.status(), "credit balance");
    if (*bal != BalanceChange::kApplied) return HandlerResult::Permanent("no account " + ev->user_id);
    return HandlerResult::Ok("topped up " + std::to_string(ev->amount_cents) + " cents for " + ev->user_id);
  };
  return spec;
}

}  // namespace idem::payments
