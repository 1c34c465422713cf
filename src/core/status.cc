#include "idem/status.h"

namespace idem {

const char* Status::CodeName(Code c) {
  switch (c) {
    case Code::kOk: return "OK";
    case Code::kInvalidArgument: return "InvalidArgument";
    case Code::kNotFound: return "NotFound";
    case Code::kAlreadyExists: return "AlreadyExists";
    case Code::kRetryable: return "Retryable";
    case Code::kUnavailable: return "Unavailable";
    case Code::kBusy: return "Busy";
    case Code::kInDoubt: return "InDoubt";
    case Code::kPermanent: return "Permanent";
    case Code::kCorruption: return "Corruption";
    case Code::kIOError: return "IOError";
    case Code::kTransactionConflict: return "TransactionConflict";
    case Code::kNotSupported: return "NotSupported";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(CodeName(code_)) + ": " + message_;
}

}  // namespace idem
