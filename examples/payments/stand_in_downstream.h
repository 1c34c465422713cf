// StandInDownstream: the bank and the notice service for a deployment that has
// not linked its own clients yet. Every call succeeds at once; with a log, each
// is written there with its idempotency key (the Idempotency-Key header a real
// client would send). A deployment replaces it with its clients behind
// Downstream (downstream.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "payments/downstream.h"

namespace idem::payments {

class StandInDownstream final : public Downstream {
 public:
  // `log` receives one line per call; default none.
  explicit StandInDownstream(std::function<void(std::string_view)> log = nullptr) : log_(std::move(log)) {}

  Status ConfirmDebit(const std::string& idempotency_key, const std::string& payment_id,
                      int64_t amount_cents) override {
    if (log_)
      log_("bank: confirm debit " + payment_id + " of " + std::to_string(amount_cents) +
           " cents (Idempotency-Key " + idempotency_key + ")");
    return Status::OK();
  }
  Status SendNotice(const Notice& notice) override {
    if (log_)
      log_("notice: " + notice.kind + " to user " + notice.user_id + " (Idempotency-Key " + notice.idempotency_key +
           ")");
    return Status::OK();
  }

 private:
  std::function<void(std::string_view)> log_;
};

}  // namespace idem::payments
