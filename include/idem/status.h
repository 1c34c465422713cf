// Status and Result<T>: cheap error values that say what the caller should do next.
//
// A Status is either OK or carries a Code and a message. The predicates
// IsRetryable() and IsInDoubt() are the questions callers actually ask:
//   - retryable: nothing was changed for good; trying again later may succeed
//     (database or network down, lock timeout, insufficient balance awaiting top-up).
//   - in doubt:  a COMMIT was sent and its outcome is unknown. NEVER retry blindly:
//     re-read the consumption record first.
//   - transaction conflict (also retryable): the database chose this transaction as
//     the victim of a deadlock or a serialization failure. Nothing is wrong with the
//     work: roll the whole transaction back and run it again at once.
// Everything else is permanent: retrying cannot help (bad payload, illegal state).
//
// Thread safety: plain values that own their message; a copy may go to any
// thread.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace idem {

class [[nodiscard]] Status {
 public:
  enum class Code : unsigned char {
    kOk = 0,
    kInvalidArgument,  // the input is wrong; permanent
    kNotFound,
    kAlreadyExists,    // a UNIQUE constraint said no; for ledgers this means "already applied"
    kRetryable,        // transient; try again later
    kUnavailable,      // a server or file cannot be reached; retryable
    kBusy,             // lock contention; retryable
    kInDoubt,          // commit outcome unknown; re-read before doing anything else
    kPermanent,        // retrying cannot help
    kCorruption,       // stored data is not what we wrote
    kIOError,          // local I/O failed; retryable
    kTransactionConflict,  // deadlock victim or serialization failure; rerun the whole transaction
    kNotSupported,     // this backend cannot do that at all; the message says what it does instead
  };

  Status() = default;
  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string m) { return Status(Code::kInvalidArgument, std::move(m)); }
  static Status NotFound(std::string m) { return Status(Code::kNotFound, std::move(m)); }
  static Status AlreadyExists(std::string m) { return Status(Code::kAlreadyExists, std::move(m)); }
  static Status Retryable(std::string m) { return Status(Code::kRetryable, std::move(m)); }
  static Status Unavailable(std::string m) { return Status(Code::kUnavailable, std::move(m)); }
  static Status Busy(std::string m) { return Status(Code::kBusy, std::move(m)); }
  static Status InDoubt(std::string m) { return Status(Code::kInDoubt, std::move(m)); }
  static Status Permanent(std::string m) { return Status(Code::kPermanent, std::move(m)); }
  static Status Corruption(std::string m) { return Status(Code::kCorruption, std::move(m)); }
  static Status IOError(std::string m) { return Status(Code::kIOError, std::move(m)); }
  static Status TransactionConflict(std::string m) { return Status(Code::kTransactionConflict, std::move(m)); }
  static Status NotSupported(std::string m) { return Status(Code::kNotSupported, std::move(m)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  bool IsRetryable() const {
    return code_ == Code::kRetryable || code_ == Code::kUnavailable || code_ == Code::kBusy ||
           code_ == Code::kIOError || code_ == Code::kTransactionConflict;
  }
  // The transaction lost a deadlock or a serialization check: rerunning it is the
  // fix (a savepoint rollback is not enough: the locks held before it caused it).
  bool IsTransactionConflict() const { return code_ == Code::kTransactionConflict; }
  bool IsInDoubt() const { return code_ == Code::kInDoubt; }
  bool IsAlreadyExists() const { return code_ == Code::kAlreadyExists; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsNotSupported() const { return code_ == Code::kNotSupported; }

  // "Retryable: database is locked" — the code name, then the message.
  std::string ToString() const;
  static const char* CodeName(Code c);

 private:
  Status(Code c, std::string m) : code_(c), message_(std::move(m)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// Result<T> holds a T or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}             // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}      // NOLINT: must not be OK

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace idem

// Propagate a failing Status out of the current function.
#define IDEM_RETURN_IF_ERROR(expr)             \
  do {                                         \
    ::idem::Status _idem_s = (expr);           \
    if (!_idem_s.ok()) return _idem_s;         \
  } while (0)
