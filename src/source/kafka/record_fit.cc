#include "source/kafka/record_fit.h"

#include <vector>

#include "core/bounded_text.h"
#include "source/kafka/record_codec.h"

namespace idem::kafka {
namespace {

// librdkafka's v2 record overhead is at most ~60 bytes; each header adds two
// varints. Counted generously so a record that passes here passes there.
constexpr size_t kRecordOverhead = 128;
constexpr size_t kHeaderOverhead = 10;
constexpr size_t kTrimNoteBytes = 512;

size_t HeaderSize(const std::pair<std::string, std::string>& h) {
  return h.first.size() + h.second.size() + kHeaderOverhead;
}

// The headers a move writes itself (record_codec.h): what the copy is.
bool IsOurs(const std::string& name) {
  return name.rfind("kafka_dlt-", 0) == 0 || name.rfind("retry_topic-", 0) == 0 || name == header::kTopic ||
         name == header::kMessageId || name == header::kPublishedMs || name == header::kFirstFailedMs ||
         name == header::kLastFailedMs;
}

}  // namespace

size_t RecordWireSize(const OutRecord& r) {
  size_t total = kRecordOverhead + r.key.size() + r.value.size();
  for (const auto& h : r.headers) total += HeaderSize(h);
  return total;
}

RecordFit FitRecord(OutRecord& r, size_t max_bytes) {
  RecordFit fit;
  std::erase_if(r.headers, [](const auto& h) { return h.first == kHeadersTrimmedHeader; });
  if (RecordWireSize(r) <= max_bytes) {
    fit.fits = true;
    return fit;
  }
  std::vector<std::pair<std::string, std::string>> all = std::move(r.headers);
  r.headers.clear();
  size_t used = kRecordOverhead + r.key.size() + r.value.size() + kTrimNoteBytes;
  for (const auto& h : all)
    if (IsOurs(h.first)) used += HeaderSize(h);
  if (used > max_bytes) {
    fit.why_not = "its key and value of " + GroupedCount(r.key.size() + r.value.size()) +
                  " bytes with idem's headers are over the producer's message.max.bytes of " +
                  GroupedCount(max_bytes);
    r.headers = std::move(all);
    return fit;
  }
  std::string dropped;
  for (auto& h : all) {
    const size_t size = HeaderSize(h);
    if (!IsOurs(h.first) && used + size > max_bytes) {
      fit.dropped_headers++;
      fit.dropped_bytes += size;
      if (dropped.size() < kTrimNoteBytes / 2) dropped += " " + QuotedValue(h.first);
      continue;
    }
    if (!IsOurs(h.first)) used += size;
    r.headers.push_back(std::move(h));
  }
  if (fit.dropped_headers)
    r.headers.emplace_back(kHeadersTrimmedHeader,
                           BoundedReason(GroupedCount(fit.dropped_headers) + " header(s) of " +
                                             GroupedCount(fit.dropped_bytes) +
                                             " bytes dropped to fit the producer's message.max.bytes of " +
                                             GroupedCount(max_bytes) + ":" + dropped,
                                         kTrimNoteBytes - 32));
  fit.fits = true;
  return fit;
}

}  // namespace idem::kafka
