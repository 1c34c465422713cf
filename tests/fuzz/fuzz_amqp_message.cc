// The RabbitMQ message codec and header tables on arbitrary content headers.
//
// The input is the property list of an AMQP basic content header, as a producer
// or the broker sends it (flags, message-id, timestamp, the headers table with
// x-death, …); rabbitmq-c decodes it as it does off the socket. Then:
// - MessageFromAmqp, AttemptOf, DeathsOf and HeadersAsText must not crash, and
//   the attempt is within [1, 1,000,000];
// - the copy idem republishes (Outgoing::CopyOf, as for a retry or a parked
//   message) encodes, decodes and reads back as the same message, every header
//   included;
// - a message idem publishes itself (FromMessage) reads back with the same key,
//   publication time and header text.
#include <amqp.h>
#include <amqp_framing.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_text.h"
#include "source/rabbitmq/field_table.h"
#include "source/rabbitmq/message_codec.h"
#include "source/rabbitmq/outgoing.h"

namespace {

using idem::Message;
using idem::fuzz::Check;
using namespace idem::rabbitmq;

struct Pool {
  Pool() { init_amqp_pool(&pool, 4096); }
  ~Pool() { empty_amqp_pool(&pool); }
  amqp_pool_t pool;
};

QueueNames Names() {
  QueueNames names;
  names.main = "q";
  names.exchange = "q";
  names.dead = "q.dead";
  names.audit = "q.audit";
  return names;
}

// Encodes `p` as rabbitmq-c does before sending it, and decodes it again into `pool`.
const amqp_basic_properties_t* OverTheWire(amqp_basic_properties_t p, amqp_pool_t* pool) {
  static std::vector<char> buffer(16 << 20);  // far above any frame: rendering as text can grow a table
  const int n = amqp_encode_properties(AMQP_BASIC_CLASS, &p, amqp_bytes_t{buffer.size(), buffer.data()});
  Check(n >= 0, "a copy idem would publish does not encode");
  void* decoded = nullptr;
  const int rc = amqp_decode_properties(AMQP_BASIC_CLASS, pool, amqp_bytes_t{size_t(n), buffer.data()}, &decoded);
  Check(rc == AMQP_STATUS_OK, "a copy idem encoded does not decode");
  return static_cast<const amqp_basic_properties_t*>(decoded);
}

const amqp_table_t& HeadersOf(const amqp_basic_properties_t& p) {
  static const amqp_table_t kEmpty{0, nullptr};
  return (p._flags & AMQP_BASIC_HEADERS_FLAG) ? p.headers : kEmpty;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const QueueNames names = Names();
  Pool in;
  void* decoded = nullptr;
  amqp_bytes_t bytes{size, const_cast<uint8_t*>(data)};
  if (amqp_decode_properties(AMQP_BASIC_CLASS, &in.pool, bytes, &decoded) != AMQP_STATUS_OK) return 0;
  const auto& props = *static_cast<const amqp_basic_properties_t*>(decoded);
  const std::string body = "{\"id\":1}";
  const amqp_bytes_t body_bytes{body.size(), const_cast<char*>(body.data())};

  const Message m = MessageFromAmqp(props, body_bytes, "pay", "fallback");
  const int attempts = AttemptOf(HeadersOf(props), names);
  Check(attempts >= 1 && attempts <= 1'000'000, "attempt out of range");
  (void)DeathsOf(HeadersOf(props));

  // The copy that goes to a wait queue, the terminal queue or a hold queue
  // keeps everything the producer and the broker attached.
  auto copy = Outgoing::CopyOf(props, body_bytes);
  Pool again;
  const amqp_basic_properties_t* back = OverTheWire(copy->Properties(), &again.pool);
  Check(HeadersAsText(HeadersOf(*back)) == HeadersAsText(HeadersOf(props)), "a republished copy lost headers");
  const Message m2 = MessageFromAmqp(*back, body_bytes, "pay", "fallback");
  Check(m2.id == m.id && m2.key == m.key && m2.topic == m.topic && AttemptOf(HeadersOf(*back), names) == attempts &&
            m2.published_at_ms == m.published_at_ms,
        "a republished copy reads back as a different message");

  // A message idem publishes from a Message (idem publish, replay).
  constexpr int64_t kNowMs = 1'700'000'000'000;
  auto fresh = FromMessage(m, names, "", kNowMs);
  Pool third;
  const amqp_basic_properties_t* out = OverTheWire(fresh->Properties(), &third.pool);
  const Message m3 = MessageFromAmqp(*out, body_bytes, m.topic, "fallback");
  // (A key header that is not text or an integer gives no key, and comes back as its JSON text.)
  Check(m.key.empty() || m3.key == m.key, "a published message changed key");
  Check(m3.published_at_ms == (m.published_at_ms ? m.published_at_ms : kNowMs), "publication time changed");
  for (const auto& [k, v] : m.headers) {
    if (k == kKeyHeader || k == kPublishedHeader || k == kAttemptHeader) continue;
    auto it = m3.headers.find(k);
    Check(it != m3.headers.end() && it->second == v, "a published message changed a header");
  }
  return 0;
}
