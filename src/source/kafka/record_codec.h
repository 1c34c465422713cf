// How idem's messages and their bookkeeping travel in Kafka records.
//
// Header names follow Spring Kafka where it has one (kafka_dlt-*, retry_topic-*),
// so tools that know Spring's retry and dead-letter topics read idem's too.
// Values are decimal text (Spring writes binary integers; text keeps them
// readable in kafka-console-consumer and kcat).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "idem/message.h"
#include "source/kafka/confirmed_producer.h"
#include "source/kafka/rdkafka_handles.h"

namespace idem::kafka {

namespace header {
inline constexpr char kTopic[] = "idem-topic";  // Message::topic when it is not the Kafka topic
inline constexpr char kMessageId[] = "idem-message-id";  // Message::id given by the producer, kept by moves
inline constexpr char kPublishedMs[] = "idem-published-ms";
inline constexpr char kAttempts[] = "retry_topic-attempts";       // handler runs so far (Settlement::attempts)
inline constexpr char kDueMs[] = "retry_topic-backoff-timestamp";  // not deliverable before (Unix ms)
inline constexpr char kOriginalTopic[] = "kafka_dlt-original-topic";
inline constexpr char kOriginalPartition[] = "kafka_dlt-original-partition";
inline constexpr char kOriginalOffset[] = "kafka_dlt-original-offset";
inline constexpr char kOriginalTimestamp[] = "kafka_dlt-original-timestamp";
inline constexpr char kOriginalGroup[] = "kafka_dlt-original-consumer-group";
inline constexpr char kReason[] = "kafka_dlt-exception-message";
inline constexpr char kFirstFailedMs[] = "idem-first-failed-ms";
inline constexpr char kLastFailedMs[] = "idem-last-failed-ms";
// A marker record in a dead-letter topic: it hides the entry whose id it names.
inline constexpr char kHides[] = "idem-dlt-hides";
inline constexpr char kAction[] = "idem-dlt-action";  // "replayed" or "purged"
inline constexpr char kActor[] = "idem-dlt-actor";
}  // namespace header

// The bookkeeping only idem's moves write (retry_topic-*, kafka_dlt-*, the
// failure times): on a record a producer wrote to a main topic it is renamed
// like a reserved x-idem-* header (core/reserved_headers.h), so a forged
// failure history never reaches a retry copy or a dead letter.
bool IsMovesHeader(std::string_view name);

// Kafka topic names derived from a main topic.
std::string RetryTopic(const std::string& topic, int64_t delay_ms);
std::string DeadLetterTopic(const std::string& topic);

// "topic/partition@offset": Message::id of a stored record.
std::string RecordId(const std::string& topic, int32_t partition, int64_t offset);

// The message a consumed record carries: payload, key and headers byte-exact,
// Message::id from idem-message-id (else "topic/partition@offset"),
// Message::topic from idem-topic (else the record's topic, or `main_topic` for
// a retry-topic record).
Message ToMessage(const rd_kafka_message_t* record, const std::string& main_topic);

// The header `name` of `m` parsed as a number, or `fallback`.
int64_t NumberHeader(const Message& m, const char* name, int64_t fallback);
// The header `name` of a raw record as text; false when absent.
bool RecordHeader(const rd_kafka_message_t* record, const char* name, std::string* value);

// A record for `m` on `kafka_topic`: key, payload and headers of `m`, minus any
// bookkeeping header (the caller sets those), plus idem-message-id when the
// message has an id and idem-topic when its topic is not the Kafka topic.
OutRecord FromMessage(const Message& m, const std::string& kafka_topic);

}  // namespace idem::kafka
