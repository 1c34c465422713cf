// notice.send: a notice pay.success emitted through the outbox
// (ServiceOptions::downstream_via_outbox), recorded and sent once per event.
// A send that fails retries this message alone; the payment stays committed.
#include "payments/events.h"
#include "payments/handler_util.h"

namespace idem::payments {

using namespace detail;

HandlerSpec NoticeHandler(const ServiceOptions& options) {
  HandlerSpec spec;
  spec.topic = kTopicNotice;
  spec.key.fields = {"event_key"};
  spec.fn = [options](HandlerContext& ctx) -> HandlerResult {
    auto ev = ParseNotice(ctx.payload);
    if (!ev.ok()) return HandlerResult::Permanent(ev.status().message());
    if (auto failed = NoticeOnce(ctx, options, {"", ev->event_key, ev->user_id, ev->order_no, ev->kind}))
      return *failed;
    return HandlerResult::Ok("notice " + ev->event_key + " sent");
  };
  return spec;
}

}  // namespace idem::payments
