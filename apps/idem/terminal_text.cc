#include "terminal_text.h"

#include <cstdint>
#include <cstdio>

namespace idem::cli {
namespace {

// The length of the valid UTF-8 sequence at the start of `s` and its code
// point, or 0 when it is not one (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF).
size_t DecodeUtf8(std::string_view s, uint32_t* cp) {
  const auto b = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  const uint8_t lead = b(0);
  size_t len = 0;
  uint32_t min = 0;
  if (lead < 0x80) {
    *cp = lead;
    return 1;
  } else if ((lead & 0xe0) == 0xc0) {
    len = 2, min = 0x80, *cp = lead & 0x1f;
  } else if ((lead & 0xf0) == 0xe0) {
    len = 3, min = 0x800, *cp = lead & 0x0f;
  } else if ((lead & 0xf8) == 0xf0) {
    len = 4, min = 0x10000, *cp = lead & 0x07;
  } else {
    return 0;
  }
  if (s.size() < len) return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((b(i) & 0xc0) != 0x80) return 0;
    *cp = *cp << 6 | (b(i) & 0x3f);
  }
  if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff)) return 0;
  return len;
}

// Characters that are valid text but change what the terminal shows without
// showing themselves.
bool IsInvisibleControl(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

void AppendHex(std::string& out, uint8_t byte) {
  char buf[5];
  std::snprintf(buf, sizeof buf, "\\x%02x", byte);
  out += buf;
}

std::string Escape(std::string_view bytes, bool keep_newlines) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    const uint8_t c = static_cast<uint8_t>(bytes[i]);
    if (c < 0x80) {
      switch (c) {
        case '\\': out += keep_newlines ? "\\" : "\\\\"; break;
        case '\0': out += "\\0"; break;
        case '\n': out += keep_newlines ? "\n" : "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          if (c < 0x20 || c == 0x7f) AppendHex(out, c);
          else out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    uint32_t cp = 0;
    const size_t len = DecodeUtf8(bytes.substr(i), &cp);
    if (len == 0) {
      AppendHex(out, c);  // one byte at a time: the next may start a valid character
      ++i;
    } else if (IsInvisibleControl(cp)) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\u{%04x}", static_cast<unsigned>(cp));
      out += buf;
      i += len;
    } else {
      out.append(bytes.substr(i, len));
      i += len;
    }
  }
  return out;
}

}  // namespace

std::string TerminalSafe(std::string_view bytes) { return Escape(bytes, false); }

std::string TerminalSafeLines(std::string_view text) { return Escape(text, true); }

}  // namespace idem::cli
