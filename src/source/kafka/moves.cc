#include "source/kafka/moves.h"

#include <algorithm>

#include "source/kafka/record_codec.h"

namespace idem::kafka {
namespace {

// The original coordinates travel with the first move and are kept by later
// ones, so a dead letter names the record the producer wrote, not a retry copy.
void AddFailureHeaders(OutRecord& r, const Message& m, const Origin& origin, const std::string& reason,
                       int64_t now_ms) {
  auto keep_or = [&](const char* name, const std::string& value) {
    auto it = m.headers.find(name);
    r.headers.emplace_back(name, it != m.headers.end() ? it->second : value);
  };
  keep_or(header::kOriginalTopic, origin.kafka_topic);
  keep_or(header::kOriginalPartition, std::to_string(origin.partition));
  keep_or(header::kOriginalOffset, std::to_string(origin.offset));
  keep_or(header::kOriginalTimestamp, std::to_string(m.published_at_ms));
  r.headers.emplace_back(header::kOriginalGroup, origin.group);
  r.headers.emplace_back(header::kReason, reason);
  keep_or(header::kFirstFailedMs, std::to_string(now_ms));
  r.headers.emplace_back(header::kLastFailedMs, std::to_string(now_ms));
  r.headers.emplace_back(header::kPublishedMs, std::to_string(m.published_at_ms));
}

}  // namespace

int64_t RetryRung(const std::vector<int64_t>& rungs, int64_t delay_ms) {
  int64_t best = -1;
  for (int64_t r : rungs)
    if (r >= delay_ms && (best < 0 || r < best)) best = r;
  return best >= 0 ? best : *std::max_element(rungs.begin(), rungs.end());
}

OutRecord RetryRecord(const Message& m, const Origin& origin, const std::vector<int64_t>& rungs, int64_t delay_ms,
                      const std::string& reason, int attempts, int64_t now_ms) {
  Message routed = m;
  if (routed.topic.empty()) routed.topic = origin.main_topic;
  OutRecord r = FromMessage(routed, RetryTopic(origin.main_topic, RetryRung(rungs, delay_ms)));
  r.headers.emplace_back(header::kAttempts, std::to_string(attempts));
  r.headers.emplace_back(header::kDueMs, std::to_string(now_ms + delay_ms));
  AddFailureHeaders(r, m, origin, reason, now_ms);
  return r;
}

OutRecord DeadLetterRecord(const Message& m, const Origin& origin, const std::string& reason, int attempts,
                           int64_t now_ms) {
  Message routed = m;
  if (routed.topic.empty()) routed.topic = origin.main_topic;
  OutRecord r = FromMessage(routed, DeadLetterTopic(origin.main_topic));
  r.headers.emplace_back(header::kAttempts, std::to_string(attempts));
  AddFailureHeaders(r, m, origin, reason, now_ms);
  return r;
}

}  // namespace idem::kafka
