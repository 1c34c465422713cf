// pay.success over a whole batch: the set-based form of PaySuccessHandler
// (HandlerSpec::batch_fn), one statement per step for all of the batch's
// payments instead of about six per payment.
#pragma once

#include <optional>

#include "idem/handler.h"
#include "payments/events.h"
#include "payments/handlers.h"

namespace idem::payments::detail {

// The happy path of every payment of the set, or a failure for all of them
// when any one is not (the pipeline then runs each alone through the
// one-message handler, which says what it hit).
BatchHandlerFn PaySuccessSet(const ServiceOptions& options);

// The points grant and the notice of a charged payment as outgoing messages
// (ServiceOptions::downstream_via_outbox). nullopt when both were added.
std::optional<HandlerResult> EmitPaySuccessDownstream(HandlerContext& ctx, const PaySuccess& ev);

}  // namespace idem::payments::detail
