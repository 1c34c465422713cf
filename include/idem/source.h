// Source: a broker adapter. It hands out bounded batches of messages and settles
// each one once the pipeline knows its fate.
//
// Settlement is batched so every broker can do it cheaply: the embedded queue in
// one transaction, RabbitMQ with confirmed publishes then acks by delivery tag,
// Kafka by committing the highest contiguous settled offset of each partition.
//
// Contract for implementations:
//   - kRetry and kPark must move the message durably (retry tier, terminal queue)
//     BEFORE the original copy is acknowledged, so a crash in between yields a
//     duplicate copy (which the guard absorbs), never a lost message.
//   - kRelease gives the message back for redelivery without counting an attempt
//     (used when the database is unavailable and nothing was decided).
// Thread safety: one Source per consumer thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "idem/message.h"
#include "idem/status.h"

namespace idem {

struct Settlement {
  enum class Kind { kAck, kRetry, kPark, kRelease };
  const Message* message = nullptr;  // must be a message returned by Poll and not yet settled
  Kind kind = Kind::kAck;
  int64_t delay_ms = 0;  // kRetry: when to deliver again; kRelease: how long to hold it back
  std::string reason;    // kRetry/kPark: why (stored with the message)
};

class Source {
 public:
  virtual ~Source() = default;

  // Returns up to `max_messages` messages, waiting at most `max_wait_ms` for the
  // first one. An empty vector means nothing is ready yet.
  virtual Result<std::vector<Message>> Poll(size_t max_messages, int64_t max_wait_ms) = 0;

  // Settles messages from earlier polls. On error nothing is known to be settled
  // for sure; unsettled messages come back after their visibility timeout, and
  // the guard absorbs the copies.
  virtual Status Settle(const std::vector<Settlement>& settlements) = 0;
};

}  // namespace idem
