#include "source/rabbitmq/copy_fit.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include "core/bounded_text.h"
#include "core/reserved_headers.h"
#include "source/rabbitmq/connection.h"
#include "source/rabbitmq/message_codec.h"
#include "source/rabbitmq/publish_limits.h"

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

// What one entry adds to its table. A table that came from the broker holds
// only AMQP types; a value of none counts as too large to keep.
size_t EntrySize(const amqp_table_entry_t& e) {
  const amqp_table_t one{1, const_cast<amqp_table_entry_t*>(&e)};
  const int64_t n = EncodedTableBytes(one);
  return n < 0 ? std::numeric_limits<uint32_t>::max() : static_cast<size_t>(n - 4);
}

bool KeyIn(const amqp_bytes_t& key, std::initializer_list<std::string_view> names) {
  return std::any_of(names.begin(), names.end(), [&](std::string_view n) {
    return key.len == n.size() && std::memcmp(key.bytes, n.data(), n.size()) == 0;
  });
}

bool IsIdemHeader(const amqp_bytes_t& key) {
  constexpr std::string_view kPrefix = kReservedHeaderPrefix;  // x-idem-*, the producer's own ones too
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

size_t HeaderFrameSize(Outgoing& o) {
  const int64_t props = EncodedPropertiesBytes(o);  // its 2 flag bytes are in kContentHeaderFixed
  if (props < 0) return std::numeric_limits<uint32_t>::max();
  return kFrameOverhead + kContentHeaderFixed - 2 + static_cast<size_t>(props) + kMargin;
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
