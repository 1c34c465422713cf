// The consumers a run drives, and the log of what the broker handed them.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "idem/message.h"
#include "idem/status.h"

namespace idem::payments {

// Every copy the broker handed to a consumer, in order.
struct Delivery {
  size_t consumer = 0;
  std::string message_id;
  int attempt = 1;         // 1 + the retries of this message that reached the broker before this copy
  int delivery_count = 1;  // the broker's count for this copy
};

class DeliveryLog {
 public:
  void Record(size_t consumer, const Message& m) {
    deliveries_.push_back({consumer, m.id, 1 + retries_[m.id], m.delivery_count});
  }
  // A consumer's retry of `message_id` reached the broker: the copy the delay
  // tier hands out next is a new attempt, not a duplicate delivery.
  void NoteRetry(const std::string& message_id) { retries_[message_id]++; }
  const std::vector<Delivery>& deliveries() const { return deliveries_; }

 private:
  std::vector<Delivery> deliveries_;
  std::map<std::string, int> retries_;
};

// A consumer the driver can step: one poll → process → settle round.
class Consumer {
 public:
  virtual ~Consumer() = default;
  // Returns how many messages it received (0: nothing was ready).
  virtual Result<size_t> Step() = 0;
};

}  // namespace idem::payments
