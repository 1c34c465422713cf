// The same kind of Status with a message that says where it happened, so
// IsRetryable() and IsInDoubt() still answer for the underlying failure.
#pragma once

#include <string>

#include "idem/status.h"

namespace idem::reconcile {

Status Rewrap(const Status& s, std::string message);

}  // namespace idem::reconcile
