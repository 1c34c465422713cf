// The payments service: one handler per topic (see events.h), each running
// inside the guard's transaction and using the business guards (idem/guards.h)
// for its own writes:
//
//   pay.success   order WAIT_PAY→PAID (CAS), ledger PAY_DEDUCT once, balance − amount
//                 (conditional), bank confirm, points (payment, PAY) once, notice once
//   pay.refund    order PAID→REFUNDED, ledger REFUND once, balance + amount, notice once
//   order.ship    order PAID→SHIPPED, stock move once, stock − quantity (version), notice once
//   order.finish  order SHIPPED→FINISHED
//   account.topup ledger TOPUP once, balance + amount
//   points.grant  points (payment, scene) once
//   notice.send   notice once (the consumer of what pay.success emits through the outbox)
//
// With ServiceOptions::downstream_via_outbox, pay.success grants no points and
// sends no notice itself: it emits points.grant and notice.send through the
// outbox (HandlerContext::Emit), in its transaction, and other consumer groups
// apply them (PointsHandler, NoticeHandler) once the relay published them. The
// payment commits without waiting for the notice service, and a notice that
// fails is retried by its own consumer, never by re-running the payment.
//
// Outcomes: insufficient balance and too-early events are retryable; illegal
// transitions, unknown orders and bad payloads are permanent (terminal queue);
// duplicates and stale events are OK — acknowledged, nothing applied, and said
// so in the record's result summary and the service log.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "idem/handler.h"
#include "idem/pipeline.h"
#include "payments/downstream.h"

namespace idem::payments {

struct ServiceOptions {
  Downstream* downstream = nullptr;  // required; must outlive the handlers
  // Receives one line per business decision worth a person's eye (stale,
  // duplicate, illegal, insufficient). Default: none.
  std::function<void(std::string_view)> log;
  // pay.success emits points.grant and notice.send through the outbox instead
  // of writing the points and sending the notice in its own transaction. Default false.
  bool downstream_via_outbox = false;
};

HandlerSpec PaySuccessHandler(const ServiceOptions& options);
HandlerSpec RefundHandler(const ServiceOptions& options);
HandlerSpec ShipHandler(const ServiceOptions& options);
HandlerSpec FinishHandler(const ServiceOptions& options);
HandlerSpec TopUpHandler(const ServiceOptions& options);
HandlerSpec PointsHandler(const ServiceOptions& options);
HandlerSpec NoticeHandler(const ServiceOptions& options);

// All six (notice.send is not among them: it only exists with downstream_via_outbox).
std::vector<HandlerSpec> PaymentHandlers(const ServiceOptions& options);
Status RegisterPaymentHandlers(Pipeline& pipeline, const ServiceOptions& options);

}  // namespace idem::payments
