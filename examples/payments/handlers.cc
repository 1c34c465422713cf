#include "payments/handlers.h"

namespace idem::payments {

std::vector<HandlerSpec> PaymentHandlers(const ServiceOptions& options) {
  return {PaySuccessHandler(options), RefundHandler(options), ShipHandler(options),
          FinishHandler(options),     TopUpHandler(options),  PointsHandler(options)};
}

Status RegisterPaymentHandlers(Pipeline& pipeline, const ServiceOptions& options) {
  if (!options.downstream) return Status::InvalidArgument("the payments handlers need a Downstream");
  for (HandlerSpec& spec : PaymentHandlers(options)) IDEM_RETURN_IF_ERROR(pipeline.Register(std::move(spec)));
  return Status::OK();
}

}  // namespace idem::payments
