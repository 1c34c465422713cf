#include "source/kafka/dead_letter_console.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "source/kafka/record_codec.h"
#include "source/kafka/topic_reader.h"

namespace idem::kafka {

Result<std::vector<DeadLetterConsole::Entry>> DeadLetterConsole::Scan() {
  auto reader = TopicReader::Open(options_, bootstrap_);
  if (!reader.ok()) return reader.status();
  std::vector<Entry> entries;
  std::set<int64_t> hidden;
  for (size_t stream = 0; stream < options_.topics.size(); ++stream) {
    const std::string& topic = options_.topics[stream];
    Status s = reader->ReadAll(DeadLetterTopic(topic), [&](const rd_kafka_message_t* record) {
      std::string hides;
      int64_t id = 0;
      if (RecordHeader(record, header::kHides, &hides)) {
        if (std::from_chars(hides.data(), hides.data() + hides.size(), id).ec == std::errc()) hidden.insert(id);
        return;
      }
      Entry e;
      e.stream = stream;
      e.partition = record->partition;
      e.letter.id = Id(stream, record->partition, record->offset);
      e.letter.message = ToMessage(record, topic);
      const Message& m = e.letter.message;
      auto reason = m.headers.find(header::kReason);
      e.letter.reason = reason != m.headers.end() ? reason->second : "";
      e.letter.attempts = static_cast<int>(NumberHeader(m, header::kAttempts, 0));
      e.letter.first_failed_ms = NumberHeader(m, header::kFirstFailedMs, 0);
      e.letter.last_failed_ms = NumberHeader(m, header::kLastFailedMs, 0);
      entries.push_back(std::move(e));
    });
    if (!s.ok()) return s;
  }
  std::erase_if(entries, [&](const Entry& e) { return hidden.count(e.letter.id) > 0; });
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.letter.id < b.letter.id; });
  return entries;
}

Result<std::vector<DeadLetter>> DeadLetterConsole::List(size_t limit, int64_t after_id) {
  auto entries = Scan();
  if (!entries.ok()) return entries.status();
  std::vector<DeadLetter> out;
  for (Entry& e : *entries) {
    if (out.size() >= limit) break;
    if (e.letter.id > after_id) out.push_back(std::move(e.letter));
  }
  return out;
}

Result<std::optional<DeadLetter>> DeadLetterConsole::Get(int64_t id) {
  auto entries = Scan();
  if (!entries.ok()) return entries.status();
  for (Entry& e : *entries)
    if (e.letter.id == id) return std::optional<DeadLetter>(std::move(e.letter));
  return std::optional<DeadLetter>();
}

Result<std::vector<DeadLetterConsole::Entry>> DeadLetterConsole::Select(const std::vector<int64_t>& ids) {
  auto entries = Scan();
  if (!entries.ok() || ids.empty()) return entries;
  const std::set<int64_t> wanted(ids.begin(), ids.end());
  std::erase_if(*entries, [&](const Entry& e) { return wanted.count(e.letter.id) == 0; });
  return entries;
}

Status DeadLetterConsole::Hide(const std::vector<Entry>& entries, const std::string& action,
                               const std::string& actor) {
  std::vector<OutRecord> markers;
  for (const Entry& e : entries) {
    OutRecord r;
    r.topic = DeadLetterTopic(options_.topics[e.stream]);
    r.partition = e.partition;
    r.headers = {{header::kHides, std::to_string(e.letter.id)},
                 {header::kAction, action},
                 {header::kActor, actor},
                 {header::kLastFailedMs, std::to_string(env_->NowMs())}};
    markers.push_back(std::move(r));
  }
  return producer_->ProduceAll(markers);
}

Result<int64_t> DeadLetterConsole::Replay(const std::vector<int64_t>& ids, const std::string& actor) {
  auto entries = Select(ids);
  if (!entries.ok()) return entries.status();
  std::vector<OutRecord> copies;
  for (const Entry& e : *entries) {
    Message m = e.letter.message;
    m.headers[kReplayHeader] = actor;
    copies.push_back(FromMessage(m, options_.topics[e.stream]));
  }
  // The copies first: a crash before the markers leaves the entry listed (a
  // second replay makes a copy the guard absorbs), never a lost message.
  Status s = producer_->ProduceAll(copies);
  if (s.ok()) s = Hide(*entries, "replayed", actor);
  if (!s.ok()) return s;
  return static_cast<int64_t>(entries->size());
}

Result<int64_t> DeadLetterConsole::Purge(const std::vector<int64_t>&, const std::string&) {
  return Status::NotSupported(
      "a Kafka topic is a log and cannot delete one record, so nothing was purged: the dead letters stay in "
      "the -dlt topic until its retention (retention.ms / retention.bytes) removes them; replay one to take it "
      "out of the console");
}

}  // namespace idem::kafka
