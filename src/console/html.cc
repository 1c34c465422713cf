#include "console/html.h"

#include <ctime>

namespace idem::console {
namespace {

// The length of the valid UTF-8 sequence at `s[i]`, or 0 when it is not one
// (overlong forms, surrogates and code points above U+10FFFF are not valid).
size_t Utf8Length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = 0;
  uint32_t cp = 0;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

std::string HexByte(unsigned char c) {
  static const char* digits = "0123456789abcdef";
  return std::string("\\x") + digits[c >> 4] + digits[c & 15];
}

}  // namespace

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string ShowBytes(std::string_view bytes) {
  std::string readable;
  for (size_t i = 0; i < bytes.size();) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    const size_t n = Utf8Length(bytes, i);
    if (n == 0 || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
      readable += HexByte(c);
      ++i;
      continue;
    }
    readable.append(bytes.substr(i, n));
    i += n;
  }
  return Escape(readable);
}

std::string ShowPrefix(std::string_view bytes, size_t limit) {
  if (bytes.size() <= limit) return ShowBytes(bytes);
  size_t n = limit;
  // Back up over continuation bytes (at most 3) to the start of the character that straddles the cut.
  for (size_t back = 0; n > 0 && back < 3 && (static_cast<unsigned char>(bytes[n]) & 0xC0) == 0x80; ++back) --n;
  if ((static_cast<unsigned char>(bytes[n]) & 0xC0) == 0x80) n = limit;  // not UTF-8 there: cut where asked
  return ShowBytes(bytes.substr(0, n));
}

std::string Page(const std::string& title, const std::string& body, const std::string& signed_in,
                 const std::string& csrf) {
  std::string header;
  if (!signed_in.empty())
    header = "<header><a href=\"/console/\">Dead letters</a> <a href=\"/console/audit\">Audit</a> <span>" +
             Escape(signed_in) + "</span><form method=\"post\" action=\"/console/logout\">"
             "<input type=\"hidden\" name=\"csrf\" value=\"" + Escape(csrf) +
             "\"><button type=\"submit\">Log out</button></form></header>";
  return "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + Escape(title) +
         " — idem</title><style>"
         "body{font:14px system-ui,sans-serif;margin:0 2em 2em}header{display:flex;gap:1.5em;align-items:center;"
         "padding:.8em 0;border-bottom:1px solid #ccc;margin-bottom:1em}header span{margin-left:auto;color:#555}"
         "header form{margin:0}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.35em .6em;"
         "border-bottom:1px solid #e4e4e4;vertical-align:top}th{background:#f4f4f4}pre{background:#f7f7f7;"
         "padding:1em;white-space:pre-wrap;word-break:break-all}.error{color:#a00}.notice{color:#060}"
         "button{margin:.6em .6em 0 0}td.reason{max-width:40em}</style></head><body>" +
         header + "<h1>" + Escape(title) + "</h1>" + body + "</body></html>";
}

std::string FormatTime(int64_t ms) {
  if (ms == 0) return "-";
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

std::string FormatAge(int64_t ms) {
  if (ms < 0) ms = 0;
  const int64_t s = ms / 1000, m = s / 60, h = m / 60, d = h / 24;
  if (d > 0) return std::to_string(d) + "d " + std::to_string(h % 24) + "h";
  if (h > 0) return std::to_string(h) + "h " + std::to_string(m % 60) + "m";
  if (m > 0) return std::to_string(m) + "m " + std::to_string(s % 60) + "s";
  return std::to_string(s) + "s";
}

}  // namespace idem::console
