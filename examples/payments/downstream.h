// The services a payments handler calls outside its database: the bank and the
// user-notice service. Each call carries the idempotency key, as an
// `Idempotency-Key` header would, so the callee can deduplicate too:
// a handler whose transaction rolls back and runs again calls them again.
#pragma once

#include <cstdint>
#include <string>

#include "idem/status.h"

namespace idem::payments {

struct Notice {
  std::string idempotency_key;  // "" when the caller has none (the naive consumer)
  std::string event_key;        // NoticeKey(kind, business id)
  std::string user_id;
  std::string order_no;
  std::string kind;  // PAY_SUCCESS, REFUND, SHIPPED
};

class Downstream {
 public:
  virtual ~Downstream() = default;
  // Confirms a debit with the bank (8–12 s in the incident). The bank charges
  // once per non-empty key; every keyless call is a charge of its own.
  virtual Status ConfirmDebit(const std::string& idempotency_key, const std::string& payment_id,
                              int64_t amount_cents) = 0;
  // Sends a notice to the user (the incident's in-app message). A client library
  // may throw on a transport failure; handlers let that propagate to the
  // pipeline (idem) or the listener container (naive), which is what the
  // incident's code did.
  virtual Status SendNotice(const Notice& notice) = 0;
};

}  // namespace idem::payments
