#include "source/rabbitmq/message_codec.h"

#include <amqp_framing.h>

#include <algorithm>
#include <limits>

#include "source/rabbitmq/connection.h"
#include "source/rabbitmq/field_table.h"
#include "source/rabbitmq/publish_limits.h"

namespace idem::rabbitmq {
namespace {

const amqp_table_t& HeadersOf(const amqp_basic_properties_t& p) {
  static const amqp_table_t kEmpty{0, nullptr};
  return (p._flags & AMQP_BASIC_HEADERS_FLAG) ? p.headers : kEmpty;
}

// The largest AMQP timestamp (seconds) whose milliseconds fit in int64_t.
constexpr uint64_t kMaxTimestampS = std::numeric_limits<int64_t>::max() / 1000;

void Route(Outgoing& o, const std::string& queue) {
  o.exchange.clear();  // the default exchange routes by queue name
  o.routing_key = queue;
}

}  // namespace

int AttemptOf(const amqp_table_t& headers, const QueueNames& names) {
  constexpr int64_t kMaxAttempt = 1'000'000;
  const int64_t stamped = std::max<int64_t>(GetInt(headers, kAttemptHeader).value_or(1), 1);
  // Counts come from the wire: a negative one cannot take passes away, and the
  // sum stops at the cap instead of overflowing.
  int64_t passes = 0;
  for (const Death& d : DeathsOf(headers))
    if (d.reason == "expired" && names.IsWait(d.queue) && d.count > 0)
      passes = std::min(kMaxAttempt, passes + std::min(d.count, kMaxAttempt));
  return static_cast<int>(std::min(std::max(stamped, 1 + passes), kMaxAttempt));
}

Message MessageFromAmqp(const amqp_basic_properties_t& p, amqp_bytes_t body, const std::string& routing_key,
                        const std::string& fallback_id) {
  const amqp_table_t& h = HeadersOf(p);
  Message m;
  m.id = (p._flags & AMQP_BASIC_MESSAGE_ID_FLAG) && p.message_id.len ? BytesToString(p.message_id) : fallback_id;
  // A digest message-id stands for the full id in idem-message-id; the header
  // counts only when it is what the digest was made from.
  if (IsDigestId(m.id))
    if (auto full = GetString(h, kMessageIdHeader); full && AmqpMessageId(*full) == m.id) m.id = *full;
  auto key = GetString(h, kKeyHeader);
  m.key = key ? *key : GetString(h, kLegacyKeyHeader).value_or("");
  m.topic = GetString(h, kTopicHeader).value_or(routing_key);
  m.headers = HeadersAsText(h);
  m.payload = BytesToString(body);
  if (auto published = GetInt(h, kPublishedHeader)) m.published_at_ms = *published;
  else if ((p._flags & AMQP_BASIC_TIMESTAMP_FLAG) && p.timestamp <= kMaxTimestampS)
    m.published_at_ms = static_cast<int64_t>(p.timestamp) * 1000;  // beyond that: unknown, as without one
  return m;
}

std::unique_ptr<Outgoing> FromMessage(const Message& m, const QueueNames& names, const std::string& to_queue,
                                      int64_t now_ms) {
  auto o = std::make_unique<Outgoing>();
  o->body = m.payload;
  o->message_id = AmqpMessageId(m.id);
  o->content_type = "application/json";
  o->timestamp_s = static_cast<uint64_t>((m.published_at_ms ? m.published_at_ms : now_ms) / 1000);
  for (const auto& [k, v] : m.headers) o->headers.SetString(k, v);
  if (o->message_id != m.id) o->headers.SetString(kMessageIdHeader, m.id);
  if (!m.key.empty()) o->headers.SetString(kKeyHeader, m.key);
  o->headers.SetInt(kPublishedHeader, m.published_at_ms ? m.published_at_ms : now_ms);
  if (to_queue.empty()) {
    o->exchange = names.exchange;
    o->routing_key = m.topic;
  } else {
    Route(*o, to_queue);
    o->headers.SetString(kTopicHeader, m.topic);
  }
  return o;
}

void MakeRetryCopy(Outgoing& o, const Message& m, const std::string& queue, const std::string& reason, int attempts,
                   int64_t now_ms) {
  Route(o, queue);
  o.headers.SetString(kTopicHeader, m.topic);
  o.headers.SetInt(kAttemptHeader, attempts);
  o.headers.SetString(kReasonHeader, reason);
  if (!m.headers.count(kFirstFailedHeader)) o.headers.SetInt(kFirstFailedHeader, now_ms);
  o.headers.SetInt(kLastFailedHeader, now_ms);
}

void MakeHoldCopy(Outgoing& o, const Message& m, const std::string& queue) {
  Route(o, queue);
  o.headers.SetString(kTopicHeader, m.topic);
}

void MakeDeadCopy(Outgoing& o, const Message& m, const QueueNames& names, const std::string& reason, int attempts,
                  int64_t dead_id, int64_t now_ms) {
  Route(o, names.dead);
  o.headers.SetString(kTopicHeader, m.topic);
  o.headers.SetInt(kAttemptHeader, attempts);
  o.headers.SetString(kReasonHeader, reason);
  if (!m.headers.count(kFirstFailedHeader)) o.headers.SetInt(kFirstFailedHeader, now_ms);
  o.headers.SetInt(kLastFailedHeader, now_ms);
  o.headers.SetInt(kDeadIdHeader, dead_id);
}

void MakeReplayCopy(Outgoing& o, const std::string& topic, const QueueNames& names, const std::string& actor,
                    int64_t now_ms) {
  Route(o, names.main);
  for (const char* h : {kAttemptHeader, kReasonHeader, kFirstFailedHeader, kLastFailedHeader, kDeadIdHeader, "x-death"})
    o.headers.Remove(h);
  o.headers.SetString(kTopicHeader, topic);
  o.headers.SetString(kReplayHeader, actor);
  o.headers.SetInt(kReplayedAtHeader, now_ms);
}

}  // namespace idem::rabbitmq
