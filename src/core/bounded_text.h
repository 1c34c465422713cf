// Bounded text for reasons and errors. A reason travels with a dead letter (a broker
// header, a store row, a log line), so a value quoted in it must not carry the
// whole of a hostile field: a 200 kB user_id quoted in full made the
// dead-letter copy too large for the broker to take.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace idem {

// The most of a value a reason quotes; longer values are cut.
inline constexpr size_t kQuotedValueBytes = 64;
// The most a whole reason keeps (Settlement::reason, a record's last error).
inline constexpr size_t kMaxReasonBytes = 2048;

// `value` as quoted in a reason: "abc" when it is short, else its first
// kQuotedValueBytes (never splitting a UTF-8 sequence) and its length:
// "uuu…" (200,000 bytes).
std::string QuotedValue(std::string_view value);

// `reason` when it is at most `max_bytes`, else its head (on a UTF-8 boundary)
// followed by "… (N bytes in all)", within `max_bytes` (only the head when
// `max_bytes` leaves no room for the note).
std::string BoundedReason(std::string_view reason, size_t max_bytes = kMaxReasonBytes);

// Input quoted in an error message about it (a topic, a header name, a key):
// 'abc' whole when it is at most `max_bytes`, else its head (never splitting a
// UTF-8 sequence), "…" and its length: 'aaaa…' (65,536 bytes).
std::string BoundedQuote(std::string_view text, size_t max_bytes = kQuotedValueBytes);

// "200,000": a count with thousands separators, as reasons show lengths.
std::string GroupedCount(size_t n);

}  // namespace idem
