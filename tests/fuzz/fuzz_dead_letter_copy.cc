// The dead-letter copy on arbitrary bodies, producer headers and reasons.
//
// The input chooses a frame size, a message limit, a reason, a header table
// (names, strings up to 64 KiB, numbers, nested tables) and a body. The copy
// idem would move to the terminal queue (Outgoing::CopyOf, MakeDeadCopy with
// the reason bounded as the pipeline bounds it, FitMoveCopy) must then either
// - fit: its properties encode, as rabbitmq-c does before sending, within the
//   frame's budget (frame_max - 20 bytes); the body is byte-exact; idem's
//   headers are all there with their values; or
// - not fit, and say why: the store path is taken, which happens only when the
//   body is over the message limit or idem's own headers alone overflow.
// With Kafka built in, the same for the dead-letter record (FitRecord against
// the producer's message.max.bytes).
#include <amqp.h>
#include <amqp_framing.h>
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/bounded_text.h"
#include "fuzz_text.h"
#include "source/rabbitmq/copy_fit.h"
#include "source/rabbitmq/field_table.h"
#include "source/rabbitmq/message_codec.h"
#include "source/rabbitmq/outgoing.h"
#if IDEM_FUZZ_KAFKA
#include "source/kafka/moves.h"
#include "source/kafka/record_codec.h"
#include "source/kafka/record_fit.h"
#endif

namespace {

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

amqp_bytes_t Keep(Pool& p, const std::string& s) {
  amqp_bytes_t b{s.size(), s.empty() ? nullptr : amqp_pool_alloc(&p.pool, s.size())};
  if (!s.empty()) std::memcpy(b.bytes, s.data(), s.size());
  return b;
}

// One header value: a string (up to 64 KiB, repeated bytes so a short input
// makes a large one), a number, or a small nested table.
amqp_field_value_t Value(FuzzedDataProvider& in, Pool& p, int depth) {
  amqp_field_value_t v{};
  switch (in.ConsumeIntegralInRange<int>(0, depth < 3 ? 3 : 2)) {
    case 0: {
      v.kind = AMQP_FIELD_KIND_UTF8;
      const std::string seed = in.ConsumeRandomLengthString(64);
      const size_t copies = in.ConsumeIntegralInRange<size_t>(1, 1024);
      std::string s;
      for (size_t i = 0; i < copies && s.size() < 65'536; ++i) s += seed.empty() ? "h" : seed;
      v.value.bytes = Keep(p, s);
      break;
    }
    case 1:
      v.kind = AMQP_FIELD_KIND_I64;
      v.value.i64 = in.ConsumeIntegral<int64_t>();
      break;
    case 2:
      v.kind = AMQP_FIELD_KIND_BOOLEAN;
      v.value.boolean = in.ConsumeBool();
      break;
    default: {
      v.kind = AMQP_FIELD_KIND_TABLE;
      const int n = in.ConsumeIntegralInRange<int>(0, 4);
      auto* entries = static_cast<amqp_table_entry_t*>(amqp_pool_alloc(&p.pool, sizeof(amqp_table_entry_t) * 4));
      for (int i = 0; i < n; ++i) {
        entries[i].key = Keep(p, in.ConsumeRandomLengthString(16));
        entries[i].value = Value(in, p, depth + 1);
      }
      v.value.table = {n, entries};
      break;
    }
  }
  return v;
}

bool HasString(const amqp_table_t& t, const char* key, const std::string& want) {
  auto got = GetString(t, key);
  return got && *got == want;
}

void CheckRabbitCopy(FuzzedDataProvider& in, const std::string& reason_in) {
  Pool pool;
  const size_t frame_max = in.ConsumeIntegralInRange<size_t>(4096, kDefaultFrameMax);
  const size_t max_message_bytes = in.ConsumeIntegralInRange<size_t>(0, 1 << 20);
  const int n = in.ConsumeIntegralInRange<int>(0, 40);
  std::vector<amqp_table_entry_t> headers(static_cast<size_t>(n));
  for (amqp_table_entry_t& e : headers) {
    std::string name = in.ConsumeRandomLengthString(300);
    if (name.size() > 255) name.resize(255);  // a table key is a short string on the wire
    e.key = Keep(pool, name);
    e.value = Value(in, pool, 0);
  }
  const std::string seed = in.ConsumeRandomLengthString(256);
  const size_t copies = in.ConsumeIntegralInRange<size_t>(1, 4096);
  std::string body;
  for (size_t i = 0; i < copies && !seed.empty(); ++i) body += seed;

  amqp_basic_properties_t props{};
  props._flags = AMQP_BASIC_HEADERS_FLAG | AMQP_BASIC_MESSAGE_ID_FLAG;
  props.headers = {n, headers.data()};
  const std::string id = "m-1";
  props.message_id = amqp_cstring_bytes(id.c_str());
  amqp_bytes_t body_bytes{body.size(), body.empty() ? nullptr : body.data()};

  auto copy = Outgoing::CopyOf(props, body_bytes);
  idem::Message m;
  m.topic = "pay";
  const std::string reason = idem::BoundedReason(reason_in);
  MakeDeadCopy(*copy, m, Names(), reason, 3, 42, 1'700'000'000'000);
  const CopyFit fit = FitMoveCopy(*copy, frame_max, max_message_bytes);
  if (!fit.fits) {
    Check(!fit.why_not.empty(), "a copy that does not fit says why");
    // Only the body over the limit, or idem's headers alone over the frame, send a message to the store.
    const bool body_over = body.size() > max_message_bytes;
    const bool ours_over = reason.size() + 1024 > frame_max;
    Check(body_over || ours_over, "the store path was taken for a copy that could have been trimmed to fit");
    return;
  }
  Check(copy->body == body, "the body of a copy is byte-exact");
  std::vector<char> buffer(frame_max - 20);  // rabbitmq-c's budget for a content header's properties
  amqp_basic_properties_t out = copy->Properties();
  const int encoded = amqp_encode_properties(AMQP_BASIC_CLASS, &out, amqp_bytes_t{buffer.size(), buffer.data()});
  Check(encoded >= 0, "a copy that fits encodes within the frame");
  const amqp_table_t t = copy->headers.table();
  Check(HasString(t, kTopicHeader, "pay"), "the copy names its topic");
  Check(HasString(t, kReasonHeader, reason), "the copy carries its whole (bounded) reason");
  Check(GetInt(t, kAttemptHeader) == 3, "the copy carries its attempts");
  Check(GetInt(t, kDeadIdHeader) == 42, "the copy carries its dead-letter id");
  Check(GetInt(t, kLastFailedHeader) == 1'700'000'000'000, "the copy carries its failure time");
  if (fit.dropped_headers) Check(Find(t, kHeadersTrimmedHeader) != nullptr, "a trimmed copy says what it dropped");
}

#if IDEM_FUZZ_KAFKA
void CheckKafkaRecord(FuzzedDataProvider& in, const std::string& reason_in) {
  const size_t max_bytes = in.ConsumeIntegralInRange<size_t>(1000, 1'000'000);
  idem::Message m;
  m.topic = "pay";
  m.key = in.ConsumeRandomLengthString(600);
  const int n = in.ConsumeIntegralInRange<int>(0, 40);
  for (int i = 0; i < n; ++i) {
    std::string name = in.ConsumeRandomLengthString(64);
    const std::string seed = in.ConsumeRandomLengthString(64);
    const size_t copies = in.ConsumeIntegralInRange<size_t>(1, 4096);
    std::string value;
    for (size_t c = 0; c < copies && !seed.empty(); ++c) value += seed;
    m.headers[name] = value;
  }
  m.payload = in.ConsumeRemainingBytesAsString();
  const std::string reason = idem::BoundedReason(reason_in);
  idem::kafka::Origin origin{"pay", "pay", 0, 7, "g"};
  idem::kafka::OutRecord r = idem::kafka::DeadLetterRecord(m, origin, reason, 3, 1'700'000'000'000);
  const idem::kafka::RecordFit fit = idem::kafka::FitRecord(r, max_bytes);
  if (!fit.fits) {
    Check(!fit.why_not.empty(), "a record that does not fit says why");
    return;
  }
  Check(r.value == m.payload && r.key == m.key, "the record's key and value are byte-exact");
  Check(idem::kafka::RecordWireSize(r) <= max_bytes, "a record that fits is within message.max.bytes");
  bool has_reason = false, has_topic = false;
  for (const auto& [name, value] : r.headers) {
    has_reason |= name == idem::kafka::header::kReason && value == reason;
    has_topic |= name == idem::kafka::header::kOriginalTopic;
  }
  Check(has_reason && has_topic, "idem's headers are in every record that is sent");
}
#endif

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const bool kafka = in.ConsumeBool();
  // Reasons as handlers write them: anything, up to 300 kB (the bound cuts them).
  const std::string seed = in.ConsumeRandomLengthString(128);
  const size_t copies = in.ConsumeIntegralInRange<size_t>(1, 3000);
  std::string reason;
  for (size_t i = 0; i < copies && !seed.empty(); ++i) reason += seed;
#if IDEM_FUZZ_KAFKA
  if (kafka) {
    CheckKafkaRecord(in, reason);
    return 0;
  }
#else
  (void)kafka;
#endif
  CheckRabbitCopy(in, reason);
  return 0;
}
