// Between AMQP messages and idem's Message, and the copies idem publishes when
// it moves a message (retry rung, hold, terminal queue, replay).
#pragma once

#include <amqp.h>

#include <cstdint>
#include <memory>
#include <string>

#include "idem/message.h"
#include "source/rabbitmq/outgoing.h"
#include "source/rabbitmq/topology.h"

namespace idem::rabbitmq {

// The business key (Message::key), set by the producer. Outside the x-idem-*
// names, which are idem's own bookkeeping and are not taken from producers.
inline constexpr const char* kKeyHeader = "idem-key";
// Where earlier versions (and producers that followed their docs) put the key;
// read when idem-key is absent.
inline constexpr const char* kLegacyKeyHeader = "x-idem-key";
// The full Message::id when it is longer than a message-id holds (255 bytes);
// the message-id is then its digest (publish_limits.h).
inline constexpr const char* kMessageIdHeader = "idem-message-id";
inline constexpr const char* kTopicHeader = "x-idem-topic";
inline constexpr const char* kAttemptHeader = "x-idem-attempt";
inline constexpr const char* kPublishedHeader = "x-idem-published-ms";
inline constexpr const char* kReasonHeader = "x-idem-reason";
inline constexpr const char* kFirstFailedHeader = "x-idem-first-failed-ms";
inline constexpr const char* kLastFailedHeader = "x-idem-last-failed-ms";
inline constexpr const char* kDeadIdHeader = "x-idem-dead-id";
inline constexpr const char* kReplayedAtHeader = "x-idem-replayed-at-ms";

// A received message. `routing_key` is the delivery's; `fallback_id` names the
// copy when the producer set no message-id. Does not set receipt/received_at_ms.
// Carries no attempt count (AttemptOf is for the dead-letter console).
Message MessageFromAmqp(const amqp_basic_properties_t& properties, amqp_bytes_t body,
                        const std::string& routing_key, const std::string& fallback_id);

// The attempts shown with a dead letter: x-idem-attempt (the consumption
// record's count, stamped by each retry and park), cross-checked with the
// broker's x-death count of passes through the wait queues. They disagree only
// if a copy lost a header on the way (a third-party shovel, a manual move); the
// larger wins. At least 1. The pipeline never reads it: the record counts.
int AttemptOf(const amqp_table_t& headers, const QueueNames& names);

// A message to publish to exchange Q with routing key = topic (PublishBatch), or,
// with `to_queue` set, straight into that queue through the default exchange.
std::unique_ptr<Outgoing> FromMessage(const Message& m, const QueueNames& names, const std::string& to_queue,
                                      int64_t now_ms);

// The copy that goes to wait queue `queue` after a retryable failure, stamped
// with the record's `attempts` so far.
void MakeRetryCopy(Outgoing& o, const Message& m, const std::string& queue, const std::string& reason, int attempts,
                   int64_t now_ms);
// The copy that goes to hold queue `queue` (its headers unchanged).
void MakeHoldCopy(Outgoing& o, const Message& m, const std::string& queue);
// The copy that goes to the terminal queue, with its reason, the record's
// `attempts` and its dead-letter id.
void MakeDeadCopy(Outgoing& o, const Message& m, const QueueNames& names, const std::string& reason, int attempts,
                  int64_t dead_id, int64_t now_ms);
// The copy of a dead letter that goes back to the main queue: attempts start
// again, the replay header names the actor, terminal bookkeeping and x-death are
// dropped.
void MakeReplayCopy(Outgoing& o, const std::string& topic, const QueueNames& names, const std::string& actor,
                    int64_t now_ms);

}  // namespace idem::rabbitmq
