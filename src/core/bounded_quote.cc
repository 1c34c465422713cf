#include "core/bounded_quote.h"

namespace idem {

std::string GroupedDigits(size_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string BoundedQuote(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return "'" + std::string(text) + "'";
  size_t cut = max_bytes;
  // Back off continuation bytes (10xxxxxx) so no character is split in two.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return "'" + std::string(text.substr(0, cut)) + "…' (" + GroupedDigits(text.size()) + " bytes)";
}

}  // namespace idem
