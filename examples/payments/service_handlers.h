// The payments handlers as a handler set for `idem run`: a configuration that
// says handlers = ["payments"] runs all six (handlers.h) with their tables
// created on start (schema.h). Each worker gets its own stand-in bank and
// notice service (SimulatedDownstream without faults): a deployment links its
// real clients here instead.
#pragma once

#include <memory>

#include "payments/downstream.h"
#include "payments/handlers.h"
#include "payments/schema.h"
#include "service/handler_registry.h"

namespace idem::payments {

inline Status RegisterServiceHandlers(service::HandlerRegistry& registry) {
  service::HandlerSet set;
  set.description = "the payments service: pay.success, pay.refund, order.ship, order.finish, account.topup, points.grant";
  set.make = [](Env* env) -> Result<std::vector<HandlerSpec>> {
    auto downstream = std::make_shared<SimulatedDownstream>(env, SimulatedDownstream::Faults{});
    ServiceOptions options;
    options.downstream = downstream.get();
    std::vector<HandlerSpec> specs = PaymentHandlers(options);
    for (HandlerSpec& s : specs)  // each handler keeps the worker's downstream alive
      s.fn = [downstream, fn = std::move(s.fn)](HandlerContext& ctx) { return fn(ctx); };
    return specs;
  };
  set.prepare = [](Store& store) { return CreateSchema(store, SchemaVariant::kGuarded); };
  return registry.Add("payments", std::move(set));
}

}  // namespace idem::payments
