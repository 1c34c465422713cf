// Which deliveries are copies idem made itself, and what a producer's
// delivery loses on the way in (core/reserved_headers.h).
//
// Every copy idem publishes on the consuming side — a retry copy for a wait
// queue, a hold copy, a dead-letter copy, a replay copy — carries the AMQP
// user-id property set to the user idem logged in as. RabbitMQ checks that
// property on every publish (a connection may only stamp its own user name,
// unless its user has the impersonator tag) and keeps it when a wait or hold
// queue sends the copy back, so a delivery with our user-id is ours. Anything
// else — a producer's message, whether it came through exchange Q or straight
// into the queue — has its reserved x-idem-* headers renamed to
// x-producer-x-idem-*, and its topic is its routing key. This holds as long
// as producers do not log in as idem's own RabbitMQ user (docs/hostile-input.md).
#pragma once

#include <amqp.h>

#include <string>

#include "idem/message.h"
#include "source/rabbitmq/field_table.h"

namespace idem::rabbitmq {

// The delivery carries user-id `user`: a copy idem made.
bool MadeByIdem(const amqp_basic_properties_t& properties, const std::string& user);

// A producer's delivery as MessageFromAmqp decoded it: its reserved headers
// renamed, its topic the routing key (never a forged x-idem-topic).
void DisownProducerHeaders(Message& m, const std::string& routing_key);

// The same renaming in a header table about to be copied onward (a retry or
// dead-letter copy of a producer's delivery), so idem's next look at that
// copy, which it will trust, finds none of the producer's x-idem-* headers.
void DisownProducerHeaders(FieldTable& headers);

}  // namespace idem::rabbitmq
