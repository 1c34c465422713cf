// Publisher: the producing side of a broker.
// User guide: docs/brokers.md.
//
// Contract for implementations: PublishBatch returns OK only once the broker
// holds every message durably (publisher confirms, a committed transaction, an
// acks=all produce), so a producer that sees OK may forget them. On error any of
// them may or may not have been stored: publish again with the same business
// keys (the consumer's guard absorbs the copies).
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
