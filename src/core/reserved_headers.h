// idem's own headers are idem's: the x-idem-* names idem writes on the copies
// it makes itself (retry, hold, dead-letter and replay copies) must not be
// writable by a producer, or a producer could forge a failure history
// ("first failed 1970-01-01") or a replay mark.
//
// Every broker adapter applies the same rule where a producer's message comes
// in (the embedded queue's publish, a delivery RabbitMQ did not get from idem,
// a record on a Kafka main topic): a reserved header is renamed to
// "x-producer-" + its name, so it stays visible (to handlers and in `idem dlq
// show`) and idem never reads it. Copies idem made keep their headers.
//
// Not reserved: the x-idem-* headers that describe the producer's own message
// and that producers are told to set (docs/brokers.md): x-idem-key (the
// business key), x-idem-published-ms and x-idem-outbox-id (the outbox relay's
// row id). Names outside x-idem-* (idem-key, idem-message-id) are not touched
// by this rule; a broker may add its own reserved names (Kafka's retry_topic-*
// and kafka_dlt-* bookkeeping) through `also_reserved`.
//
// Nothing here is trusted for a replay: a replay runs only on the store's
// replay grant (store/replay_grants.h), whatever the headers say.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace idem {

inline constexpr std::string_view kReservedHeaderPrefix = "x-idem-";
inline constexpr std::string_view kDisownedHeaderPrefix = "x-producer-";

// x-idem-* and not one of the producer's own x-idem-* headers.
bool IsReservedHeader(std::string_view name);

// "x-producer-" + name.
std::string DisownedHeaderName(std::string_view name);

// Renames every reserved header of a producer's message (and every one
// `also_reserved` names). A producer that also sent the renamed name keeps
// its own value there. Returns how many were renamed.
int DisownReservedHeaders(std::map<std::string, std::string>& headers,
                          bool (*also_reserved)(std::string_view name) = nullptr);

}  // namespace idem
