// What RabbitMQ can carry, checked before anything of a batch is sent.
//
// AMQP 0-9-1 writes names and most properties as short strings (at most 255
// bytes: exchange, routing key = topic, message-id, content-type, every header
// name) and all properties with the header table in one content-header frame
// (at most frame_max bytes, 128 KiB as idem negotiates it). rabbitmq-c finds
// some of these only while writing the frames, after the method frame is on
// the wire, and reports "invalid AMQP data": the broker then drops the
// connection, a retry sends the batch's earlier messages again, and the same
// message fails again, forever. Checked here first, such a message is refused
// with InvalidArgument (never retryable) and nothing of its batch is sent.
#pragma once

#include <cstddef>
#include <string>

#include "idem/status.h"
#include "source/rabbitmq/outgoing.h"

namespace idem::rabbitmq {

inline constexpr size_t kMaxShortString = 255;
// The part of a content-header frame that is not properties: frame header (7),
// class id and weight (4), body size (8), frame end (1).
inline constexpr size_t kHeaderFrameOverhead = 20;

// The message-id sent for Message::id `id`: the id itself when it fits a short
// string; otherwise a stable digest of it ("idem-xxh3:" and 32 hex digits),
// with the full id in the idem-message-id header (FromMessage).
std::string AmqpMessageId(const std::string& id);
bool IsDigestId(const std::string& message_id);

// Bytes the basic properties of `o` (its header table included) take when
// encoded, or -1 when a header holds a value of no AMQP type. Iterative: a
// header table may nest as deep as its frame allows.
int64_t EncodedPropertiesBytes(Outgoing& o);
// Bytes a field table takes when encoded (its 4-byte length included), or -1
// under the same conditions.
int64_t EncodedTableBytes(const amqp_table_t& table);

// OK when `o` can be published on a connection with `frame_max`; otherwise
// InvalidArgument naming the field, its size, the limit and what to do,
// quoting at most a bounded prefix of the offending input.
Status CheckPublishable(Outgoing& o, size_t frame_max);

}  // namespace idem::rabbitmq
