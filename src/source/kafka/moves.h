// The records of idem's moves: a message to a retry topic or to the
// dead-letter topic, with the Spring-style bookkeeping headers (record_codec.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "idem/message.h"
#include "source/kafka/confirmed_producer.h"

namespace idem::kafka {

// Where a consumed message came from, for the kafka_dlt-original-* headers.
struct Origin {
  std::string main_topic;  // the consumed topic T (of the URL)
  std::string kafka_topic; // the topic the record was read from (T or a retry topic)
  int32_t partition = -1;
  int64_t offset = -1;
  std::string group;
};

// The retry rung of `delay_ms`: the smallest of `rungs` at least as long,
// else the longest.
int64_t RetryRung(const std::vector<int64_t>& rungs, int64_t delay_ms);

// The copy of `m` that waits in T-retry-<rung> until now + delay_ms. `attempts`:
// the handler runs so far, as the consumption record counts them (shown only).
OutRecord RetryRecord(const Message& m, const Origin& origin, const std::vector<int64_t>& rungs, int64_t delay_ms,
                      const std::string& reason, int attempts, int64_t now_ms);

// The copy of `m` for T-dlt, with its reason and attempt count.
OutRecord DeadLetterRecord(const Message& m, const Origin& origin, const std::string& reason, int attempts,
                           int64_t now_ms);

}  // namespace idem::kafka
