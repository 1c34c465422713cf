#include "demo/simulated_downstream.h"

#include <stdexcept>

namespace idem::demo {

Status SimulatedDownstream::ConfirmDebit(const std::string& idempotency_key, const std::string& payment_id,
                                         int64_t /*amount_cents*/) {
  stats_.debit_calls++;
  if (auto slow = faults_.slow_debit_ms.find(payment_id); slow != faults_.slow_debit_ms.end())
    env_->SleepMs(slow->second);
  // A repeated key is answered from the bank's own record: no second charge.
  if (idempotency_key.empty() || debit_keys_.insert(idempotency_key).second) stats_.debits_charged++;
  return Status::OK();
}

Status SimulatedDownstream::SendNotice(const payments::Notice& notice) {
  stats_.notice_calls++;
  if (faults_.notice_throws_once.count(notice.event_key) && notices_thrown_.insert(notice.event_key).second)
    throw std::runtime_error("notice service: connection reset while sending " + notice.event_key);
  if (notice.idempotency_key.empty() || notice_keys_.insert(notice.idempotency_key).second)
    stats_.notices_delivered++;
  return Status::OK();
}

}  // namespace idem::demo
