#include "payments/tracked_broker.h"

#include <algorithm>

namespace idem::payments {

Result<std::vector<Message>> TrackedBroker::Poll(size_t max_messages, int64_t max_wait_ms) {
  auto got = inner_->source().Poll(max_messages, std::max(clock_->ToRealMs(max_wait_ms), min_wait_ms_));
  if (!got.ok()) return got;
  const int64_t now = clock_->NowMs();
  for (Message& m : *got) {
    m.received_at_ms = now;
    held_.insert(m.receipt);
  }
  return got;
}

Status TrackedBroker::Settle(const std::vector<Settlement>& settlements) {
  std::vector<Settlement> real = settlements;
  for (Settlement& s : real) s.delay_ms = clock_->ToRealMs(s.delay_ms);
  IDEM_RETURN_IF_ERROR(inner_->source().Settle(real));
  for (const Settlement& s : settlements) {
    if (!s.message) continue;
    // A late settlement of a copy given back: the broker ignored it, and so do we.
    if (given_up_.erase(s.message->receipt)) continue;
    held_.erase(s.message->receipt);
    if (s.kind == Settlement::Kind::kAck || s.kind == Settlement::Kind::kPark) count_->finished++;
  }
  return Status::OK();
}

Status TrackedBroker::Abandon() {
  IDEM_RETURN_IF_ERROR(inner_->source().Abandon());
  given_up_.insert(held_.begin(), held_.end());
  held_.clear();
  return Status::OK();
}

}  // namespace idem::payments
