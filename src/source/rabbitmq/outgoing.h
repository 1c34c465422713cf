// Outgoing: one message idem is about to publish, owning all its bytes, so it
// can wait in the pending-moves list across calls and reconnects.
#pragma once

#include <amqp.h>

#include <cstdint>
#include <memory>
#include <string>

#include "source/rabbitmq/field_table.h"

namespace idem::rabbitmq {

struct Outgoing {
  std::string exchange;  // "" = the default exchange (routing key = queue name)
  std::string routing_key;
  std::string body;
  FieldTable headers;
  // Optional basic properties; empty = not sent.
  std::string message_id, content_type, content_encoding, correlation_id, reply_to, type, app_id;
  // idem's own user on the copies it makes (own_copies.h); RabbitMQ refuses
  // any other value. Empty = not sent.
  std::string user_id;
  uint64_t timestamp_s = 0;  // 0 = not sent
  int priority = -1;         // -1 = not sent

  // Copies body, properties and headers of a received message. Drops user-id
  // (the broker rejects a user-id that is not ours) and expiration (a per-message
  // TTL would expire the copy inside a wait queue).
  static std::unique_ptr<Outgoing> CopyOf(const amqp_basic_properties_t& properties, amqp_bytes_t body);

  // Persistent, with headers; pointers valid while this Outgoing lives unchanged.
  amqp_basic_properties_t Properties();
};

}  // namespace idem::rabbitmq
