#include "source/rabbitmq/copy_fit.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "core/bounded_text.h"
#include "source/rabbitmq/connection.h"
#include "source/rabbitmq/message_codec.h"

namespace idem::rabbitmq {
namespace {

// A frame's own bytes around its payload (type, channel, size, end marker),
// the content header's fixed fields (class, weight, body size, flags), and a
// margin for the frame-end and rabbitmq-c's own bookkeeping.
constexpr size_t kFrameOverhead = 7 + 1;
constexpr size_t kContentHeaderFixed = 2 + 2 + 8 + 2;
constexpr size_t kMargin = 64;
// The room kept for the x-idem-headers-trimmed note itself.
constexpr size_t kTrimNoteBytes = 512;

size_t ScalarSize(uint8_t kind) {
  switch (kind) {
    case AMQP_FIELD_KIND_BOOLEAN:
    case AMQP_FIELD_KIND_I8:
    case AMQP_FIELD_KIND_U8: return 1;
    case AMQP_FIELD_KIND_I16:
    case AMQP_FIELD_KIND_U16: return 2;
    case AMQP_FIELD_KIND_I32:
    case AMQP_FIELD_KIND_U32:
    case AMQP_FIELD_KIND_F32: return 4;
    case AMQP_FIELD_KIND_DECIMAL: return 5;
    case AMQP_FIELD_KIND_I64:
    case AMQP_FIELD_KIND_U64:
    case AMQP_FIELD_KIND_F64:
    case AMQP_FIELD_KIND_TIMESTAMP: return 8;
    default: return 0;  // void
  }
}

// Iterative, like the table copy: a producer's table can nest deeper than the
// stack allows recursion.
size_t ValueSize(const amqp_field_value_t& root) {
  size_t total = 0;
  std::vector<const amqp_field_value_t*> pending{&root};
  while (!pending.empty()) {
    const amqp_field_value_t* v = pending.back();
    pending.pop_back();
    total += 1;  // the kind octet
    switch (v->kind) {
      case AMQP_FIELD_KIND_UTF8:
      case AMQP_FIELD_KIND_BYTES: total += 4 + v->value.bytes.len; break;
      case AMQP_FIELD_KIND_ARRAY:
        total += 4;
        for (int i = 0; i < v->value.array.num_entries; ++i) pending.push_back(&v->value.array.entries[i]);
        break;
      case AMQP_FIELD_KIND_TABLE:
        total += 4;
        for (int i = 0; i < v->value.table.num_entries; ++i) {
          total += 1 + v->value.table.entries[i].key.len;
          pending.push_back(&v->value.table.entries[i].value);
        }
        break;
      default: total += ScalarSize(v->kind); break;
    }
  }
  return total;
}

size_t EntrySize(const amqp_table_entry_t& e) { return 1 + e.key.len + ValueSize(e.value); }

bool KeyIn(const amqp_bytes_t& key, std::initializer_list<std::string_view> names) {
  return std::any_of(names.begin(), names.end(), [&](std::string_view n) {
    return key.len == n.size() && std::memcmp(key.bytes, n.data(), n.size()) == 0;
  });
}

bool IsIdemHeader(const amqp_bytes_t& key) {
  constexpr std::string_view kPrefix = "x-idem-";
  return key.len >= kPrefix.size() && std::memcmp(key.bytes, kPrefix.data(), kPrefix.size()) == 0;
}

std::string TrimNote(size_t count, size_t bytes, size_t frame_max, const std::vector<std::string>& names) {
  std::string note = GroupedCount(count) + " header(s) of " + GroupedCount(bytes) +
                     " bytes dropped to fit the " + GroupedCount(frame_max) + "-byte AMQP frame:";
  for (const std::string& n : names) {
    std::string shown = " " + QuotedValue(n);
    if (note.size() + shown.size() > kTrimNoteBytes - 16) {
      note += " \xE2\x80\xA6";
      break;
    }
    note += shown;
  }
  return note;
}

}  // namespace

size_t EncodedTableSize(const amqp_table_t& table) {
  size_t total = 4;
  for (int i = 0; i < table.num_entries; ++i) total += EntrySize(table.entries[i]);
  return total;
}

size_t HeaderFrameSize(Outgoing& o) {
  size_t props = 1;  // delivery mode
  for (const std::string* s : {&o.message_id, &o.content_type, &o.content_encoding, &o.correlation_id, &o.reply_to,
                               &o.type, &o.app_id})
    if (!s->empty()) props += 1 + s->size();
  if (o.timestamp_s) props += 8;
  if (o.priority >= 0) props += 1;
  props += EncodedTableSize(o.headers.table());
  return kFrameOverhead + kContentHeaderFixed + props + kMargin;
}

CopyFit FitCopy(Outgoing& o, std::initializer_list<std::string_view> ours, size_t frame_max,
                size_t max_message_bytes) {
  CopyFit fit;
  if (o.body.size() > max_message_bytes) {
    fit.why_not = "its body of " + GroupedCount(o.body.size()) + " bytes is over the " +
                  GroupedCount(max_message_bytes) + "-byte message limit (max_message_bytes)";
    return fit;
  }
  o.headers.Remove(kHeadersTrimmedHeader);  // a note from a producer, or from an earlier move, is not this copy's
  if (HeaderFrameSize(o) <= frame_max) {
    fit.fits = true;
    return fit;
  }
  const std::vector<amqp_table_entry_t> all = o.headers.entries();  // bytes stay in the table's storage
  // The first entry of each of idem's names is the one the move wrote (and the
  // one readers find); a producer's repeat of such a name is the producer's.
  std::vector<bool> keep(all.size(), false), repeat(all.size(), false);
  std::set<std::string> seen;
  size_t others = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    if (KeyIn(all[i].key, ours)) {
      keep[i] = seen.insert(BytesToString(all[i].key)).second;
      repeat[i] = !keep[i];
    }
    if (!keep[i]) others += EntrySize(all[i]);
  }
  // What the copy needs without any of the others, and room for the note.
  size_t used = HeaderFrameSize(o) - others + kTrimNoteBytes;
  if (used > frame_max) {
    fit.why_not = "idem's own headers need " + GroupedCount(used) + " bytes, over the " + GroupedCount(frame_max) +
                  "-byte AMQP frame";
    return fit;
  }
  // idem's earlier headers (key, publication time, first failure) first, then the rest in order.
  std::vector<std::string> dropped;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < all.size(); ++i) {
      if (keep[i] || repeat[i] || IsIdemHeader(all[i].key) != (pass == 0)) continue;
      const size_t size = EntrySize(all[i]);
      if (used + size <= frame_max) {
        keep[i] = true;
        used += size;
      } else {
        fit.dropped_headers++;
        fit.dropped_bytes += size;
        dropped.push_back(BytesToString(all[i].key));
      }
    }
  for (size_t i = 0; i < all.size(); ++i)
    if (repeat[i]) {  // dropped: a forged copy of one of idem's own headers
      fit.dropped_headers++;
      fit.dropped_bytes += EntrySize(all[i]);
      dropped.push_back(BytesToString(all[i].key));
    }
  o.headers.Filter([&](size_t i) { return static_cast<bool>(keep[i]); });
  if (fit.dropped_headers)
    o.headers.SetString(kHeadersTrimmedHeader, TrimNote(fit.dropped_headers, fit.dropped_bytes, frame_max, dropped));
  fit.fits = true;
  return fit;
}

CopyFit FitMoveCopy(Outgoing& o, size_t frame_max, size_t max_message_bytes) {
  return FitCopy(o, {kTopicHeader, kAttemptHeader, kReasonHeader, kLastFailedHeader, kDeadIdHeader}, frame_max,
                 max_message_bytes);
}

}  // namespace idem::rabbitmq
