// The payments handlers as handler sets for `idem run`:
//
//   payments          all six (handlers.h), writing points and sending notices in
//                     the payment's own transaction
//   payments-outbox   the same without points.grant, and pay.success emits
//                     points.grant and notice.send through the outbox
//                     (ServiceOptions::downstream_via_outbox); run it with
//                     [outbox] relay = true and the two sets below in groups of
//                     their own
//   points            points.grant
//   notices           notice.send
//
// Every set creates the payments tables on start (schema.h). Each worker gets
// its own stand-in bank and notice service (StandInDownstream): a deployment
// links its real clients here instead.
#pragma once

#include <functional>
#include <memory>

#include "payments/stand_in_downstream.h"
#include "payments/handlers.h"
#include "payments/schema.h"
#include "service/handler_registry.h"

namespace idem::payments {

namespace detail {

// A handler set whose handlers `pick` makes from the worker's own downstream.
inline service::HandlerSet ServiceHandlerSet(std::string description, bool via_outbox,
                                             std::function<std::vector<HandlerSpec>(const ServiceOptions&)> pick) {
  service::HandlerSet set;
  set.description = std::move(description);
  set.make = [via_outbox, pick = std::move(pick)](Env* /*env*/) -> Result<std::vector<HandlerSpec>> {
    auto downstream = std::make_shared<StandInDownstream>();
    ServiceOptions options;
    options.downstream = downstream.get();
    options.downstream_via_outbox = via_outbox;
    std::vector<HandlerSpec> specs = pick(options);
    for (HandlerSpec& s : specs)  // each handler keeps the worker's downstream alive
      s.fn = [downstream, fn = std::move(s.fn)](HandlerContext& ctx) { return fn(ctx); };
    return specs;
  };
  set.prepare = [](Store& store) { return CreateSchema(store, SchemaVariant::kGuarded); };
  return set;
}

}  // namespace detail

inline Status RegisterServiceHandlers(service::HandlerRegistry& registry) {
  IDEM_RETURN_IF_ERROR(registry.Add(
      "payments", detail::ServiceHandlerSet("the payments service: pay.success, pay.refund, order.ship, order.finish, "
                                            "account.topup, points.grant",
                                            false, PaymentHandlers)));
  IDEM_RETURN_IF_ERROR(registry.Add(
      "payments-outbox",
      detail::ServiceHandlerSet("the payments service with pay.success emitting points.grant and notice.send "
                                "through the outbox (run with [outbox] relay = true, \"points\" and \"notices\")",
                                true, [](const ServiceOptions& o) {
                                  return std::vector<HandlerSpec>{PaySuccessHandler(o), RefundHandler(o),
                                                                  ShipHandler(o), FinishHandler(o), TopUpHandler(o)};
                                })));
  IDEM_RETURN_IF_ERROR(registry.Add(
      "points", detail::ServiceHandlerSet("points.grant: points once per (payment, scene)", false,
                                          [](const ServiceOptions& o) { return std::vector<HandlerSpec>{PointsHandler(o)}; })));
  return registry.Add("notices",
                      detail::ServiceHandlerSet("notice.send: a notice once per event", false, [](const ServiceOptions& o) {
                        return std::vector<HandlerSpec>{NoticeHandler(o)};
                      }));
}

}  // namespace idem::payments
