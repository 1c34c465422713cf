#include "source/rabbitmq/own_copies.h"

#include <amqp_framing.h>

#include "core/reserved_headers.h"
#include "source/rabbitmq/connection.h"

namespace idem::rabbitmq {

bool MadeByIdem(const amqp_basic_properties_t& p, const std::string& user) {
  return (p._flags & AMQP_BASIC_USER_ID_FLAG) && !user.empty() && BytesToString(p.user_id) == user;
}

void DisownProducerHeaders(Message& m, const std::string& routing_key) {
  DisownReservedHeaders(m.headers);
  m.topic = routing_key;
}

void DisownProducerHeaders(FieldTable& headers) {
  headers.RenameKeys([](std::string_view name) { return IsReservedHeader(name); }, kDisownedHeaderPrefix);
}

}  // namespace idem::rabbitmq
