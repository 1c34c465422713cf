// Publisher: the producing side of a broker.
// User guide: docs/brokers.md.
//
// Contract for implementations: PublishBatch returns OK only once the broker
// holds every message durably (confirms, a committed transaction, acks=all), so
// a producer that sees OK may forget them. InvalidArgument: a message the broker
// can never take; nothing of the batch was sent; do not retry. Other errors: any
// may be stored; if IsRetryable(), publish again with the same business keys.
// Thread safety: one Publisher per thread.
#pragma once

#include <cstdint>
#include <vector>

#include "idem/message.h"
#include "idem/status.h"

namespace idem {

class Publisher {
 public:
  virtual ~Publisher() = default;

  // Publishes in order, all deliverable after `delay_ms`; fills in generated
  // Message::id values. Producers that retry reuse the same business key.
  virtual Status PublishBatch(std::vector<Message>& messages, int64_t delay_ms = 0) = 0;
};

}  // namespace idem
