#include "source/rabbitmq/outgoing.h"

#include <amqp_framing.h>

#include "source/rabbitmq/connection.h"

namespace idem::rabbitmq {

std::unique_ptr<Outgoing> Outgoing::CopyOf(const amqp_basic_properties_t& p, amqp_bytes_t body) {
  auto o = std::make_unique<Outgoing>();
  o->body = BytesToString(body);
  auto copy = [&](amqp_flags_t flag, const amqp_bytes_t& from, std::string& to) {
    if (p._flags & flag) to = BytesToString(from);
  };
  copy(AMQP_BASIC_MESSAGE_ID_FLAG, p.message_id, o->message_id);
  copy(AMQP_BASIC_CONTENT_TYPE_FLAG, p.content_type, o->content_type);
  copy(AMQP_BASIC_CONTENT_ENCODING_FLAG, p.content_encoding, o->content_encoding);
  copy(AMQP_BASIC_CORRELATION_ID_FLAG, p.correlation_id, o->correlation_id);
  copy(AMQP_BASIC_REPLY_TO_FLAG, p.reply_to, o->reply_to);
  copy(AMQP_BASIC_TYPE_FLAG, p.type, o->type);
  copy(AMQP_BASIC_APP_ID_FLAG, p.app_id, o->app_id);
  if (p._flags & AMQP_BASIC_TIMESTAMP_FLAG) o->timestamp_s = p.timestamp;
  if (p._flags & AMQP_BASIC_PRIORITY_FLAG) o->priority = p.priority;
  if (p._flags & AMQP_BASIC_HEADERS_FLAG) o->headers.CopyFrom(p.headers);
  return o;
}

amqp_basic_properties_t Outgoing::Properties() {
  amqp_basic_properties_t p{};
  p._flags = AMQP_BASIC_DELIVERY_MODE_FLAG | AMQP_BASIC_HEADERS_FLAG;
  p.delivery_mode = 2;  // persistent: survives a broker restart in a durable queue
  p.headers = headers.table();
  auto set = [&](amqp_flags_t flag, const std::string& from, amqp_bytes_t& to) {
    if (from.empty()) return;
    p._flags |= flag;
    to = StringBytes(from);
  };
  set(AMQP_BASIC_MESSAGE_ID_FLAG, message_id, p.message_id);
  set(AMQP_BASIC_CONTENT_TYPE_FLAG, content_type, p.content_type);
  set(AMQP_BASIC_CONTENT_ENCODING_FLAG, content_encoding, p.content_encoding);
  set(AMQP_BASIC_CORRELATION_ID_FLAG, correlation_id, p.correlation_id);
  set(AMQP_BASIC_REPLY_TO_FLAG, reply_to, p.reply_to);
  set(AMQP_BASIC_TYPE_FLAG, type, p.type);
  set(AMQP_BASIC_APP_ID_FLAG, app_id, p.app_id);
  set(AMQP_BASIC_USER_ID_FLAG, user_id, p.user_id);
  if (timestamp_s) {
    p._flags |= AMQP_BASIC_TIMESTAMP_FLAG;
    p.timestamp = timestamp_s;
  }
  if (priority >= 0) {
    p._flags |= AMQP_BASIC_PRIORITY_FLAG;
    p.priority = static_cast<uint8_t>(priority);
  }
  return p;
}

}  // namespace idem::rabbitmq
