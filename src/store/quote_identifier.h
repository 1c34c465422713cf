// Quoting an identifier the way SQL does: the quote character around it, and
// doubled inside it. For the dialects (idem/sql.h); names come from code or
// from validated configuration, never from message content.
#pragma once

#include <string>
#include <string_view>

namespace idem {

inline std::string QuoteWith(char quote, std::string_view name) {
  std::string out(1, quote);
  for (char c : name) {
    out += c;
    if (c == quote) out += c;
  }
  return out + quote;
}

}  // namespace idem
