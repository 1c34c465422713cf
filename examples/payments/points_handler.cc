// points.grant: campaign points, once per (payment_id, scene) — the composite
// business key. The same payment may earn points in several scenes.
#include "payments/events.h"
#include "payments/handler_util.h"

namespace idem::payments {

using namespace detail;

HandlerSpec PointsHandler(const ServiceOptions& options) {
  HandlerSpec spec;
  spec.topic = kTopicPoints;
  spec.key.fields = {"payment_id", "scene"};
  spec.fn = [options](HandlerContext& ctx) -> HandlerResult {
    auto ev = ParsePointsGrant(ctx.payload);
    if (!ev.ok()) return HandlerResult::Permanent(ev.status().message());
    auto ins = InsertOnce(ctx.tx, "pay_points",
                          {{"payment_id", ev->payment_id},
                           {"scene", ev->scene},
                           {"user_id", ev->user_id},
                           {"points", ev->points},
                           {"created_at_ms", ctx.env.NowMs()}});
    if (!ins.ok()) return HandlerResult::FromStatus(ins.status(), "grant points");
    if (*ins == InsertOutcome::kAlreadyApplied) {
      Log(options, "points for " + ev->payment_id + "/" + ev->scene + " already granted (acknowledged)");
      return HandlerResult::Ok("already granted");
    }
    return HandlerResult::Ok("granted " + std::to_string(ev->points) + " points to " + ev->user_id);
  };
  return spec;
}

}  // namespace idem::payments
