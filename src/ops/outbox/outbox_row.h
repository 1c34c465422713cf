// One idem_outbox row as the relay reads it, and the message it publishes.
#pragma once

#include <cstdint>
#include <string>

#include "idem/message.h"
#include "idem/sql.h"

namespace idem::outbox {

// The columns every relay read returns, in OutboxRowFrom's order.
#define IDEM_OUTBOX_COLUMNS "id, message_id, topic, msg_key, headers, payload, attempts"

// Header carrying the row's stable message id, for consumers on brokers whose
// own message id is generated per publish.
inline constexpr const char* kOutboxIdHeader = "x-idem-outbox-id";

struct OutboxRow {
  int64_t id = 0;
  std::string message_id;
  std::string topic;
  std::string key;
  std::string headers_json;
  std::string payload;
  int attempts = 0;  // publish attempts so far
};

OutboxRow OutboxRowFrom(const Row& row);

// The message the relay publishes: the business key as the broker key and the
// row's message id (kept on every attempt) as the message id.
Message ToMessage(const OutboxRow& row);

}  // namespace idem::outbox
