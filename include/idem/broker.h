// Broker: what one broker URL opens — a consuming Source, a Publisher, and the
// dead-letter console where the broker can offer one — plus its queue depths.
// The CLI and the demo work through this, so the embedded queue, RabbitMQ and
// Kafka are interchangeable behind a URL.
// User guide: docs/brokers.md (each broker, its URL and topology).
//
// The parts are owned by the Broker and live as long as it does. They share the
// broker's connections, so a Broker and its parts are used by one thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "idem/dead_letters.h"
#include "idem/env.h"
#include "idem/message.h"
#include "idem/publisher.h"
#include "idem/source.h"
#include "idem/status.h"

namespace idem {

struct QueueStats {
  int64_t ready = -1;           // deliverable now (-1: this broker cannot tell)
  int64_t delayed = -1;         // waiting for a retry delay or a delayed publish
  int64_t in_flight = -1;       // handed to a consumer, not yet settled
  int64_t dead = 0;             // in the dead-letter queue
  int64_t oldest_dead_ms = 0;   // when the oldest parked message last failed (0 if none)
};

class Broker {
 public:
  virtual ~Broker() = default;

  virtual Source& source() = 0;
  virtual Publisher& publisher() = 0;
  // Null when this broker keeps no dead-letter queue idem can list.
  virtual DeadLetters* dead_letters() = 0;

  virtual Result<QueueStats> Stats() = 0;
};

// The prefetch for a consumer that takes batches of `batch_size`: three
// batches, so the broker goes on delivering the next batch while this one
// commits instead of waiting for its acks (on RabbitMQ, 2–3 batches measured
// about a fifth faster than one). At most 65535 (RabbitMQ's limit).
inline size_t PrefetchFor(size_t batch_size) {
  return std::min<size_t>(std::max<size_t>(3 * batch_size, 1), 65'535);
}

// How a retryable failure (Settlement::kRetry) waits for its next attempt.
// User guide: docs/retries-and-dlq.md, "Ordered retries".
enum class RetryMode {
  kBrokerDefault,  // the broker's own default: kOrdered on Kafka; the embedded queue and RabbitMQ use their delay tier
  // In place: the message stays unsettled, is handed out again after the retry
  // delay, and the later messages of its key wait behind it (other keys flow).
  // Kafka only: the embedded queue and RabbitMQ refuse it.
  kOrdered,
  // Through the broker's delay tier (Kafka: the T-retry-<ms> topics): the
  // message is moved and settled, and later messages of its key overtake it.
  kRetryTopics,
};

struct BrokerOptions {
  std::vector<std::string> topics;         // consume only these (default: all the broker routes to us)
  int64_t visibility_timeout_ms = 30'000;  // embedded queue: lease per poll; default 30 s
  size_t prefetch = PrefetchFor(100);      // RabbitMQ basic.qos / Kafka fetch bound; default 300 (batches of 100)
  // false: the queue must exist already (for inspecting it: stats, the
  // dead-letter console): NotFound if it does not, and nothing is created or
  // declared. Default true: publishers and consumers create what they need.
  bool create_if_missing = true;
  // Default: the broker's own (Kafka: ordered). Kafka applies it unless its URL sets
  // retry_mode= to another mode (an error); the embedded queue and RabbitMQ refuse kOrdered.
  RetryMode retry_mode = RetryMode::kBrokerDefault;
};

// Opens a broker from a URL:
//   a bare path, "queue:PATH" or "queue://PATH"  → the embedded queue file
//   "amqp://…"                                    → RabbitMQ (-DIDEM_WITH_RABBITMQ=ON)
//   "kafka://HOST:PORT/TOPIC?group=G", "kafka://mock/…" → Kafka (-DIDEM_WITH_KAFKA=ON)
// An unknown scheme, or one whose adapter the build leaves out, is an
// InvalidArgument that says what to use or which CMake option builds it.
// Defined in the idem::connect library.
Result<std::unique_ptr<Broker>> OpenBroker(const std::string& url, const BrokerOptions& options, Env* env);

}  // namespace idem
