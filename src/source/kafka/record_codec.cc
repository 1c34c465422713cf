#include "source/kafka/record_codec.h"

#include <charconv>

namespace idem::kafka {
namespace {

bool IsBookkeeping(const std::string& name) {
  return name == header::kTopic || name == header::kPublishedMs || name.rfind("retry_topic-", 0) == 0 ||
         name.rfind("kafka_dlt-", 0) == 0 || name.rfind("idem-", 0) == 0;
}

bool ParseInt(const std::string& s, int64_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

}  // namespace

bool IsMovesHeader(std::string_view name) {
  return name.substr(0, 12) == "retry_topic-" || name.substr(0, 10) == "kafka_dlt-" || name == header::kFirstFailedMs ||
         name == header::kLastFailedMs;
}

std::string RetryTopic(const std::string& topic, int64_t delay_ms) {
  return topic + "-retry-" + std::to_string(delay_ms);
}

std::string DeadLetterTopic(const std::string& topic) { return topic + "-dlt"; }

std::string RecordId(const std::string& topic, int32_t partition, int64_t offset) {
  return topic + "/" + std::to_string(partition) + "@" + std::to_string(offset);
}

bool RecordHeader(const rd_kafka_message_t* record, const char* name, std::string* value) {
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(record, &hdrs) != RD_KAFKA_RESP_ERR_NO_ERROR || !hdrs) return false;
  const void* v = nullptr;
  size_t size = 0;
  if (rd_kafka_header_get_last(hdrs, name, &v, &size) != RD_KAFKA_RESP_ERR_NO_ERROR) return false;
  value->assign(v ? static_cast<const char*>(v) : "", v ? size : 0);
  return true;
}

int64_t NumberHeader(const Message& m, const char* name, int64_t fallback) {
  auto it = m.headers.find(name);
  int64_t v = 0;
  return it != m.headers.end() && ParseInt(it->second, &v) ? v : fallback;
}

Message ToMessage(const rd_kafka_message_t* record, const std::string& main_topic) {
  Message m;
  const std::string kafka_topic = rd_kafka_topic_name(record->rkt);
  m.id = RecordId(kafka_topic, record->partition, record->offset);
  if (record->payload) m.payload.assign(static_cast<const char*>(record->payload), record->len);
  if (record->key) m.key.assign(static_cast<const char*>(record->key), record->key_len);
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(record, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR && hdrs) {
    const char* name = nullptr;
    const void* value = nullptr;
    size_t size = 0;
    for (size_t i = 0; rd_kafka_header_get_all(hdrs, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR; ++i)
      m.headers[name] = value ? std::string(static_cast<const char*>(value), size) : std::string();
  }
  auto id = m.headers.find(header::kMessageId);
  if (id != m.headers.end() && !id->second.empty()) m.id = id->second;
  auto topic = m.headers.find(header::kTopic);
  m.topic = topic != m.headers.end() ? topic->second : main_topic;
  m.published_at_ms = NumberHeader(m, header::kPublishedMs, rd_kafka_message_timestamp(record, nullptr));
  return m;
}

OutRecord FromMessage(const Message& m, const std::string& kafka_topic) {
  OutRecord r;
  r.topic = kafka_topic;
  r.has_key = !m.key.empty();
  r.key = m.key;
  r.value = m.payload;
  for (const auto& [name, value] : m.headers)
    if (!IsBookkeeping(name)) r.headers.emplace_back(name, value);
  if (!m.id.empty()) r.headers.emplace_back(header::kMessageId, m.id);
  if (!m.topic.empty() && m.topic != kafka_topic) r.headers.emplace_back(header::kTopic, m.topic);
  return r;
}

}  // namespace idem::kafka
