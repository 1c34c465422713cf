// The publish path's header encoding: random header names, values, nested
// tables and arrays, topics and ids. Invariants: CheckPublishable either passes
// a message that rabbitmq-c then encodes into one header frame, in exactly the
// bytes EncodedPropertiesBytes counted, or refuses it with a permanent error
// whose text stays short, whatever it quotes; a long id travels as its digest
// and comes back whole from the consuming side.
#include <amqp.h>
#include <amqp_framing.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "fuzz_text.h"
#include "source/rabbitmq/message_codec.h"
#include "source/rabbitmq/outgoing.h"
#include "source/rabbitmq/publish_limits.h"

using namespace idem::rabbitmq;
using idem::fuzz::Check;

namespace {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  bool empty() const { return p_ == end_; }
  uint8_t Byte() { return p_ == end_ ? 0 : *p_++; }
  uint16_t U16() { return static_cast<uint16_t>(Byte() << 8 | Byte()); }
  // Literal bytes, or one byte repeated: big values from small inputs.
  std::string Text() {
    const uint8_t mode = Byte();
    const size_t len = (mode & 0x80) ? static_cast<size_t>(U16()) * ((mode & 0x40) ? 64 : 1) : (mode & 0x3f);
    if (mode & 0x20) return std::string(len, static_cast<char>(Byte()));
    std::string out;
    while (out.size() < len && !empty()) out.push_back(static_cast<char>(Byte()));
    return out;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

// A header table as a producer could send it, every kind included and one
// that AMQP does not have. Depth is capped: rabbitmq-c's encoder recurses.
struct TableBuilder {
  amqp_pool_t* pool;
  std::deque<std::string>* strings;  // stable: Keep() hands out pointers into them

  amqp_bytes_t Keep(std::string s) {
    strings->push_back(std::move(s));
    return amqp_bytes_t{strings->back().size(), strings->back().empty() ? nullptr : strings->back().data()};
  }

  amqp_field_value_t Value(Input& in, int depth) {
    static const uint8_t kKinds[] = {AMQP_FIELD_KIND_BOOLEAN, AMQP_FIELD_KIND_I8,        AMQP_FIELD_KIND_U8,
                                     AMQP_FIELD_KIND_I16,     AMQP_FIELD_KIND_U16,       AMQP_FIELD_KIND_I32,
                                     AMQP_FIELD_KIND_U32,     AMQP_FIELD_KIND_I64,       AMQP_FIELD_KIND_U64,
                                     AMQP_FIELD_KIND_F32,     AMQP_FIELD_KIND_F64,       AMQP_FIELD_KIND_DECIMAL,
                                     AMQP_FIELD_KIND_UTF8,    AMQP_FIELD_KIND_BYTES,     AMQP_FIELD_KIND_TIMESTAMP,
                                     AMQP_FIELD_KIND_VOID,    AMQP_FIELD_KIND_ARRAY,     AMQP_FIELD_KIND_TABLE,
                                     'Z'};
    amqp_field_value_t v{};
    v.kind = kKinds[in.Byte() % sizeof kKinds];
    if (depth >= 32 && (v.kind == AMQP_FIELD_KIND_ARRAY || v.kind == AMQP_FIELD_KIND_TABLE))
      v.kind = AMQP_FIELD_KIND_VOID;
    switch (v.kind) {
      case AMQP_FIELD_KIND_UTF8:
      case AMQP_FIELD_KIND_BYTES: v.value.bytes = Keep(in.Text()); break;
      case AMQP_FIELD_KIND_ARRAY: {
        const int n = in.Byte() % 8;
        v.value.array.num_entries = n;
        v.value.array.entries =
            static_cast<amqp_field_value_t*>(amqp_pool_alloc(pool, sizeof(amqp_field_value_t) * (n ? n : 1)));
        for (int i = 0; i < n; ++i) v.value.array.entries[i] = Value(in, depth + 1);
        break;
      }
      case AMQP_FIELD_KIND_TABLE: v.value.table = Table(in, depth + 1, in.Byte() % 8); break;
      default: v.value.u64 = static_cast<uint64_t>(in.U16()) << 16 | in.U16(); break;
    }
    return v;
  }

  amqp_table_t Table(Input& in, int depth, int n) {
    amqp_table_t t{};
    t.num_entries = n;
    t.entries = static_cast<amqp_table_entry_t*>(amqp_pool_alloc(pool, sizeof(amqp_table_entry_t) * (n ? n : 1)));
    for (int i = 0; i < n; ++i) {
      t.entries[i].key = Keep(in.Text());
      t.entries[i].value = Value(in, depth);
    }
    return t;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  // Small frames too: the limit is then reachable from a small input.
  const size_t frame_max = 4096 + static_cast<size_t>(in.Byte() % 32) * 4096;

  amqp_pool_t pool;
  init_amqp_pool(&pool, 4096);
  std::deque<std::string> strings;
  TableBuilder tb{&pool, &strings};

  Outgoing o;
  o.routing_key = in.Text();
  const std::string id = in.Text();
  const std::string key = in.Text();
  o.message_id = AmqpMessageId(id);
  Check(o.message_id.size() <= kMaxShortString, "a message-id longer than AMQP allows");
  Check(AmqpMessageId(id) == o.message_id, "the message-id of an id is not stable");
  o.headers.CopyFrom(tb.Table(in, 0, in.Byte() % 16));
  while (!in.empty()) {
    std::string name = in.Text();
    o.headers.SetString(name, in.Text());
  }
  // As FromMessage does: idem's own headers last, over any of the same name.
  if (o.message_id != id) o.headers.SetString(kMessageIdHeader, id);
  if (!key.empty()) o.headers.SetString(kKeyHeader, key);

  const idem::Status s = CheckPublishable(o, frame_max);
  if (!s.ok()) {
    Check(!s.IsRetryable(), "a message AMQP cannot carry is reported as retryable");
    Check(s.message().size() < 1024, "a refusal quotes more than a bounded prefix of its input");
  } else {
    std::vector<char> frame(frame_max - kHeaderFrameOverhead);
    amqp_basic_properties_t props = o.Properties();
    const int n = amqp_encode_properties(AMQP_BASIC_CLASS, &props, amqp_bytes_t{frame.size(), frame.data()});
    Check(n >= 0, "a message CheckPublishable passed does not encode into one header frame");
    Check(n == EncodedPropertiesBytes(o), "EncodedPropertiesBytes differs from what rabbitmq-c encodes");

    // What a consumer reads back: the full id and key, not the digest.
    amqp_pool_t decode_pool;
    init_amqp_pool(&decode_pool, 4096);
    void* decoded = nullptr;
    if (amqp_decode_properties(AMQP_BASIC_CLASS, &decode_pool, amqp_bytes_t{static_cast<size_t>(n), frame.data()},
                               &decoded) == 0) {
      const auto* back = static_cast<const amqp_basic_properties_t*>(decoded);
      const idem::Message m = MessageFromAmqp(*back, amqp_empty_bytes, o.routing_key, "fallback");
      if (!id.empty()) Check(m.id == id, "the consumer does not get the full message id back");
    }
    empty_amqp_pool(&decode_pool);
  }
  empty_amqp_pool(&pool);
  return 0;
}
