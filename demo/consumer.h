// The consumers a run drives, and the log of what the broker handed them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "idem/message.h"
#include "idem/status.h"

namespace idem::demo {

// Every copy the broker handed to a consumer, in order.
struct Delivery {
  size_t consumer = 0;
  std::string message_id;
  int attempt = 1;         // idem's retry-tier attempt (1 unless redelivered by a retry)
  int delivery_count = 1;  // the broker's count for this copy
};

class DeliveryLog {
 public:
  void Record(size_t consumer, const Message& m) {
    deliveries_.push_back({consumer, m.id, m.attempt, m.delivery_count});
  }
  const std::vector<Delivery>& deliveries() const { return deliveries_; }

 private:
  std::vector<Delivery> deliveries_;
};

// A consumer the driver can step: one poll → process → settle round.
class Consumer {
 public:
  virtual ~Consumer() = default;
  // Returns how many messages it received (0: nothing was ready).
  virtual Result<size_t> Step() = 0;
};

}  // namespace idem::demo
