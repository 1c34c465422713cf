// Broker: a Source that can also publish, report its depth and manage its
// terminal (dead-letter) queue. The CLI and the demo work through this, so the
// embedded queue, RabbitMQ and Kafka are interchangeable behind a URL.
// User guide: docs/brokers.md (each broker, its URL and topology).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "idem/env.h"
#include "idem/message.h"
#include "idem/source.h"
#include "idem/status.h"

namespace idem {

// One message in the terminal queue.
struct DeadLetter {
  int64_t id = 0;  // stable id within this broker's terminal queue
  Message message;
  std::string reason;
  int attempts = 0;
  int64_t first_failed_ms = 0;
  int64_t last_failed_ms = 0;
};

struct QueueStats {
  int64_t ready = -1;           // deliverable now (-1: this broker cannot tell)
  int64_t delayed = -1;         // waiting for a retry delay or a delayed publish
  int64_t in_flight = -1;       // handed to a consumer, not yet settled
  int64_t dead = 0;             // in the terminal queue
  int64_t oldest_dead_ms = 0;   // when the oldest parked message last failed (0 if none)
};

class Broker : public Source {
 public:
  // Publishes in order, all deliverable after `delay_ms`; fills in generated
  // Message::id values. Returns only when the broker has them durably (confirms).
  // Producers that retry reuse the same business key.
  virtual Status PublishBatch(std::vector<Message>& messages, int64_t delay_ms = 0) = 0;

  // Gives back, unsettled, every message this object handed out and has not
  // settled yet, as a consumer that dies does: the broker delivers them again
  // (to this or another consumer) with the redelivery marked. Settling one of
  // them afterwards does nothing. For a consumer that must stop without acking
  // (a shutdown in the middle of a batch) and for fault drivers (the demo on a
  // real broker). The embedded queue makes them ready at once; RabbitMQ closes
  // the consuming connection, which requeues them, and reconnects on the next Poll.
  virtual Status AbandonDeliveries() = 0;

  // Puts a message straight into the terminal queue with a reason (rejected at
  // publish time: not JSON, no key, too large). Returns its dead-letter id.
  virtual Result<int64_t> ParkRejected(const Message& message, const std::string& reason) = 0;

  virtual Result<QueueStats> Stats() = 0;

  // Terminal-queue console.
  virtual Result<std::vector<DeadLetter>> ListDead(size_t limit, int64_t after_id = 0) = 0;
  virtual Result<std::optional<DeadLetter>> GetDead(int64_t id) = 0;
  // Sends dead letters back through the main queue with kReplayHeader set, so they
  // pass every guard again. `ids` empty = all. Audited with `actor`.
  // Returns how many moved.
  virtual Result<int64_t> ReplayDead(const std::vector<int64_t>& ids, const std::string& actor) = 0;
  // Deletes dead letters for good (`ids` empty = all). Audited with `actor`.
  virtual Result<int64_t> PurgeDead(const std::vector<int64_t>& ids, const std::string& actor) = 0;
};

struct BrokerOptions {
  std::vector<std::string> topics;         // consume only these (default: all the broker routes to us)
  int64_t visibility_timeout_ms = 30'000;  // embedded queue: lease per poll; default 30 s
  size_t prefetch = 100;                   // RabbitMQ basic.qos / Kafka fetch bound; default 100
  // false: the queue must exist already (for inspecting it: stats, the
  // dead-letter console): NotFound if it does not, and nothing is created or
  // declared. Default true: publishers and consumers create what they need.
  bool create_if_missing = true;
};

// Opens a broker from a URL:
//   a bare path, "queue:PATH" or "queue://PATH"  → the embedded queue file
//   "amqp://…"                                    → RabbitMQ (-DIDEM_WITH_RABBITMQ=ON)
// An unknown scheme, or one whose adapter the build leaves out, is an
// InvalidArgument that says what to use or which CMake option builds it.
// Defined in the idem::connect library.
Result<std::unique_ptr<Broker>> OpenBroker(const std::string& url, const BrokerOptions& options, Env* env);

}  // namespace idem
