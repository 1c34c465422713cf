// BoundedQuote: input quoted in an error message, never more than a prefix of it.
//
// Errors about input (a topic, a header name, a key) are read on terminals and
// stored in logs; quoting a 64 KiB topic in full would flood both. The quote
// keeps at most `max_bytes` bytes (cut on a UTF-8 boundary), then "…" and the
// full length: 'aaaa…' (65,536 bytes). Short input is quoted whole.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace idem {

inline constexpr size_t kQuotedPrefixBytes = 64;

std::string BoundedQuote(std::string_view text, size_t max_bytes = kQuotedPrefixBytes);

// 65536 → "65,536": lengths in messages read at a glance.
std::string GroupedDigits(size_t n);

}  // namespace idem
