// order.finish: a state change only; the state machine is the whole guard.
#include "payments/events.h"
#include "payments/handler_util.h"
#include "payments/order_states.h"

namespace idem::payments {

using namespace detail;

HandlerSpec FinishHandler(const ServiceOptions& options) {
  HandlerSpec spec;
  spec.topic = kTopicFinish;
  spec.key.fields = {"order_no"};
  spec.fn = [options](HandlerContext& ctx) -> HandlerResult {
    auto ev = ParseFinish(ctx.payload);
    if (!ev.ok()) return HandlerResult::Permanent(ev.status().message());
    auto moved = OrderStates().Move(ctx.tx, ev->order_no, kFinished, {{"updated_at_ms", ctx.env.NowMs()}});
    if (!moved.ok()) return HandlerResult::FromStatus(moved.status(), "mark order finished");
    if (!moved->applied()) return NotApplied(*moved, kFinished, ev->order_no, options);
    return HandlerResult::Ok("finished " + ev->order_no);
  };
  return spec;
}

}  // namespace idem::payments
