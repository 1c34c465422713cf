#include "source/rabbitmq/publish_limits.h"

#include <amqp_framing.h>

#include <vector>

#include "core/bounded_text.h"
#include "idem/key.h"
#include "source/rabbitmq/connection.h"

namespace idem::rabbitmq {
namespace {

constexpr char kDigestPrefix[] = "idem-xxh3:";

std::string Quote(const amqp_bytes_t& b) { return BoundedQuote(BytesToString(b)); }

// The encoded size of one field value after its kind byte, or -1 for a kind AMQP
// does not know. Nested tables and arrays are pushed on `pending`.
int64_t ValueBytes(const amqp_field_value_t& v, std::vector<const amqp_field_value_t*>* pending,
                   std::vector<const amqp_table_t*>* tables) {
  switch (v.kind) {
    case AMQP_FIELD_KIND_BOOLEAN:
    case AMQP_FIELD_KIND_I8:
    case AMQP_FIELD_KIND_U8: return 1;
    case AMQP_FIELD_KIND_I16:
    case AMQP_FIELD_KIND_U16: return 2;
    case AMQP_FIELD_KIND_I32:
    case AMQP_FIELD_KIND_U32:
    case AMQP_FIELD_KIND_F32: return 4;
    case AMQP_FIELD_KIND_I64:
    case AMQP_FIELD_KIND_U64:
    case AMQP_FIELD_KIND_F64:
    case AMQP_FIELD_KIND_TIMESTAMP: return 8;
    case AMQP_FIELD_KIND_DECIMAL: return 5;
    case AMQP_FIELD_KIND_VOID: return 0;
    case AMQP_FIELD_KIND_UTF8:
    case AMQP_FIELD_KIND_BYTES: return 4 + static_cast<int64_t>(v.value.bytes.len);
    case AMQP_FIELD_KIND_ARRAY:
      for (int i = 0; i < v.value.array.num_entries; ++i) pending->push_back(&v.value.array.entries[i]);
      return 4;
    case AMQP_FIELD_KIND_TABLE: tables->push_back(&v.value.table); return 4;
    default: return -1;
  }
}

// Walks the header table: its encoded size, or the first problem found.
struct TableWalk {
  int64_t bytes = 4;  // the table's own length field
  std::string problem;
};

TableWalk WalkHeaders(const amqp_table_t& headers) {
  TableWalk w;
  std::vector<const amqp_field_value_t*> values;
  std::vector<const amqp_table_t*> tables{&headers};
  bool top = true;
  while (!tables.empty() || !values.empty()) {
    if (!tables.empty()) {
      const amqp_table_t* t = tables.back();
      tables.pop_back();
      for (int i = 0; i < t->num_entries; ++i) {
        const amqp_table_entry_t& e = t->entries[i];
        if (e.key.len > kMaxShortString) {
          w.problem = std::string(top ? "header" : "nested header") + " name " + Quote(e.key) + " is " +
                      std::to_string(e.key.len) + " bytes; AMQP header names hold at most 255 bytes: use a shorter name";
          return w;
        }
        w.bytes += 1 + static_cast<int64_t>(e.key.len) + 1;
        values.push_back(&e.value);
      }
      top = false;
      continue;
    }
    const amqp_field_value_t* v = values.back();
    values.pop_back();
    const int64_t n = ValueBytes(*v, &values, &tables);
    if (n < 0) {
      w.problem = "a header holds a value of no AMQP type (kind " + std::to_string(static_cast<int>(v->kind)) + ")";
      return w;
    }
    w.bytes += n;
    // Array elements carry their own kind byte.
    if (v->kind == AMQP_FIELD_KIND_ARRAY) w.bytes += v->value.array.num_entries;
  }
  return w;
}

struct ShortString {
  const char* name;
  const std::string* value;
};

}  // namespace

std::string AmqpMessageId(const std::string& id) {
  if (id.size() <= kMaxShortString && !IsDigestId(id)) return id;
  return kDigestPrefix + Fingerprint(id);
}

bool IsDigestId(const std::string& message_id) { return message_id.rfind(kDigestPrefix, 0) == 0; }

int64_t EncodedPropertiesBytes(Outgoing& o) {
  const amqp_basic_properties_t p = o.Properties();
  int64_t n = 2;  // the property flags
  for (const std::string* s : {&o.content_type, &o.content_encoding, &o.correlation_id, &o.reply_to, &o.message_id,
                               &o.type, &o.app_id})
    if (!s->empty()) n += 1 + static_cast<int64_t>(s->size());
  if (p._flags & AMQP_BASIC_DELIVERY_MODE_FLAG) n += 1;
  if (p._flags & AMQP_BASIC_PRIORITY_FLAG) n += 1;
  if (p._flags & AMQP_BASIC_TIMESTAMP_FLAG) n += 8;
  if (p._flags & AMQP_BASIC_HEADERS_FLAG) {
    TableWalk w = WalkHeaders(p.headers);
    if (!w.problem.empty()) return -1;
    n += w.bytes;
  }
  return n;
}

int64_t EncodedTableBytes(const amqp_table_t& table) {
  TableWalk w = WalkHeaders(table);
  return w.problem.empty() ? w.bytes : -1;
}

Status CheckPublishable(Outgoing& o, size_t frame_max) {
  if (o.exchange.size() > kMaxShortString)
    return Status::InvalidArgument("RabbitMQ exchange name " + BoundedQuote(o.exchange) + " is " +
                                   std::to_string(o.exchange.size()) + " bytes; AMQP names hold at most 255 bytes");
  if (o.routing_key.size() > kMaxShortString)
    return Status::InvalidArgument("the topic " + BoundedQuote(o.routing_key) + " is too long for a RabbitMQ routing " +
                                   "key (at most 255 bytes): use a shorter topic");
  for (ShortString s : {ShortString{"message-id", &o.message_id}, {"content-type", &o.content_type},
                        {"content-encoding", &o.content_encoding}, {"correlation-id", &o.correlation_id},
                        {"reply-to", &o.reply_to}, {"type", &o.type}, {"app-id", &o.app_id}})
    if (s.value->size() > kMaxShortString)
      return Status::InvalidArgument(std::string("the AMQP property ") + s.name + " " + BoundedQuote(*s.value) +
                                     " is over the 255 bytes AMQP allows there: shorten it");
  TableWalk w = WalkHeaders(o.headers.table());
  if (!w.problem.empty()) return Status::InvalidArgument(w.problem);
  const int64_t bytes = EncodedPropertiesBytes(o);
  const int64_t room = static_cast<int64_t>(frame_max) - static_cast<int64_t>(kHeaderFrameOverhead);
  if (bytes > room)
    return Status::InvalidArgument("the message's properties and headers take " + GroupedCount(bytes) +
                                   " bytes encoded, more than the " + GroupedCount(room > 0 ? room : 0) +
                                   " one AMQP header frame holds (frame_max " + GroupedCount(frame_max) +
                                   "): put large values in the body, not in headers");
  return Status::OK();
}

}  // namespace idem::rabbitmq
