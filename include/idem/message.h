// Message: one delivery from a broker, as the pipeline and the handlers see it,
// and the Receipt its Source settles it by.
//
// Thread safety: plain values; copy one to hand it to another thread.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <string>

namespace idem {

// Where the Source that handed out a copy finds it again to settle it. Each Source uses the
// fields it needs; handlers must not interpret it.
struct Receipt {
  int64_t sequence = 0;    // embedded queue: row id; RabbitMQ: delivery tag; Kafka: offset
  int64_t generation = 0;  // embedded: lease token; RabbitMQ: connection generation; Kafka: assignment generation
  int32_t partition = -1;  // Kafka partition; -1 elsewhere
  int32_t stream = -1;     // the source's own index of the queue/topic it came from (e.g. a retry topic); -1 if unused

  // Receipts compare field by field, so a Source can keep what it holds in a set or map.
  friend auto operator<=>(const Receipt&, const Receipt&) = default;
};

struct Message {
  // The broker's id for this copy (AMQP message-id, queue row id, topic/partition@offset).
  // A producer resend may carry a new id for the same business event, so this is
  // never the idempotency key on its own.
  std::string id{};

  // The business key the producer attached, if any. The handler's
  // KeySpec decides whether this or fields of the payload form the idempotency key.
  std::string key{};

  std::string topic{};                         // routing: the handler is chosen by topic
  std::map<std::string, std::string> headers{};  // broker headers, passed through
  std::string payload{};                       // raw bytes, stored and parked byte-exact

  // How many times the broker has handed out this copy (1 = first delivery).
  // Not an attempt count: attempts are counted in the consumption record only
  // (HandlerContext::attempt), so a copy the broker moves or redelivers never
  // carries a count that could disagree with it.
  int delivery_count = 1;
  bool redelivered = false;  // the broker says this copy was delivered before

  int64_t published_at_ms = 0;  // when the producer published it (0 if unknown)
  int64_t received_at_ms = 0;   // when this consumer polled it

  // Set by the Source that handed this copy out (Source::Poll); only that Source reads it.
  Receipt receipt{};
};

// Header set on a message replayed from the dead-letter queue: who replayed it, for
// handlers and logs. The guard does not trust it (a producer could set it): a copy whose
// record says FAILED runs again only on the replay grant that `idem dlq replay` and the
// console write in the store with their audit row (docs/retries-and-dlq.md). A producer's
// own x-idem-* headers arrive renamed x-producer-x-idem-* (docs/hostile-input.md).
inline constexpr const char* kReplayHeader = "x-idem-replay";

}  // namespace idem
