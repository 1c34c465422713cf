// Message: one delivery from a broker, as the pipeline and the handlers see it.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace idem {

struct Message {
  // The broker's id for this copy (AMQP message-id, queue row id, topic/partition@offset).
  // A producer resend may carry a new id for the same business event, so this is
  // never the idempotency key on its own.
  std::string id;

  // The business key the producer attached, if any. The handler's
  // KeySpec decides whether this or fields of the payload form the idempotency key.
  std::string key;

  std::string topic;                           // routing: the handler is chosen by topic
  std::map<std::string, std::string> headers;  // broker headers, passed through
  std::string payload;                         // raw bytes, stored and parked byte-exact

  // How many times idem has already sent this message to a delay tier, plus one.
  // 1 on first delivery; carried by the broker across retries.
  int attempt = 1;
  // How many times the broker has handed out this copy (1 = first delivery).
  int delivery_count = 1;
  bool redelivered = false;  // the broker says this copy was delivered before

  int64_t published_at_ms = 0;  // when the producer published it (0 if unknown)
  int64_t received_at_ms = 0;   // when this consumer polled it

  // Opaque settlement handle owned by the Source (row+lease, delivery tag,
  // partition offset). Handlers must not interpret it.
  std::string receipt;
};

// Header set on a message replayed from the terminal queue, so the guard lets it
// try again even though its record says FAILED.
inline constexpr const char* kReplayHeader = "x-idem-replay";

}  // namespace idem
