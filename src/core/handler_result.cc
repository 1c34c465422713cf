#include "idem/handler.h"

namespace idem {

HandlerResult HandlerResult::FromStatus(const Status& status, std::string_view what) {
  // A step that succeeded is no failure: forwarding a guard's OK must not turn
  // an applied effect into a retry that rolls it back.
  if (status.ok()) return Ok();
  std::string reason = std::string(what) + ": " + status.ToString();
  switch (status.code()) {
    case Status::Code::kInvalidArgument:
    case Status::Code::kPermanent:
    case Status::Code::kCorruption: return Permanent(std::move(reason));
    default: return Retryable(std::move(reason));
  }
}

}  // namespace idem
