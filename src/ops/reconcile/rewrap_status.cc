#include "ops/reconcile/rewrap_status.h"

namespace idem::reconcile {

Status Rewrap(const Status& s, std::string m) {
  using C = Status::Code;
  // No default: a new kind of Status must be mapped here (-Wswitch says so).
  switch (s.code()) {
    case C::kOk:
      return Status::OK();
    case C::kInvalidArgument:
      return Status::InvalidArgument(std::move(m));
    case C::kNotFound:
      return Status::NotFound(std::move(m));
    case C::kAlreadyExists:
      return Status::AlreadyExists(std::move(m));
    case C::kRetryable:
      return Status::Retryable(std::move(m));
    case C::kUnavailable:
      return Status::Unavailable(std::move(m));
    case C::kBusy:
      return Status::Busy(std::move(m));
    case C::kInDoubt:
      return Status::InDoubt(std::move(m));
    case C::kPermanent:
      return Status::Permanent(std::move(m));
    case C::kCorruption:
      return Status::Corruption(std::move(m));
    case C::kIOError:
      return Status::IOError(std::move(m));
    case C::kTransactionConflict:
      return Status::TransactionConflict(std::move(m));
    case C::kNotSupported:
      return Status::NotSupported(std::move(m));
  }
  return Status::Permanent(std::move(m));
}

}  // namespace idem::reconcile
