#include "core/bounded_text.h"

#include <algorithm>

namespace idem {
namespace {

// The longest prefix of `s` of at most `n` bytes that does not end inside a
// UTF-8 sequence (a continuation byte is 10xxxxxx).
std::string_view HeadOf(std::string_view s, size_t n) {
  if (s.size() <= n) return s;
  size_t cut = n;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut);
}

}  // namespace

std::string GroupedCount(size_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string QuotedValue(std::string_view value) {
  if (value.size() <= kQuotedValueBytes) return "\"" + std::string(value) + "\"";
  return "\"" + std::string(HeadOf(value, kQuotedValueBytes)) + "\xE2\x80\xA6\" (" + GroupedCount(value.size()) +
         " bytes)";
}

std::string BoundedQuote(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return "'" + std::string(text) + "'";
  return "'" + std::string(HeadOf(text, max_bytes)) + "\xE2\x80\xA6' (" + GroupedCount(text.size()) + " bytes)";
}

std::string BoundedReason(std::string_view reason, size_t max_bytes) {
  if (reason.size() <= max_bytes) return std::string(reason);
  const std::string tail = "\xE2\x80\xA6 (" + GroupedCount(reason.size()) + " bytes in all)";
  if (tail.size() >= max_bytes) return std::string(HeadOf(reason, max_bytes));  // no room to say the length
  return std::string(HeadOf(reason, max_bytes - tail.size())) + tail;
}

}  // namespace idem
