#include "service/decision_line.h"

#include <charconv>
#include <cstdint>

namespace idem::service {
namespace {

// Bytes a JSON string holds as they are: printable ASCII but the quote and the backslash.
bool Plain(unsigned char c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; }

void AppendEscapedAscii(std::string* out, unsigned char c) {
  switch (c) {
    case '"': *out += "\\\""; return;
    case '\\': *out += "\\\\"; return;
    case '\b': *out += "\\b"; return;
    case '\t': *out += "\\t"; return;
    case '\n': *out += "\\n"; return;
    case '\f': *out += "\\f"; return;
    case '\r': *out += "\\r"; return;
    default: {
      static constexpr char kHex[] = "0123456789abcdef";  // lower case, as nlohmann writes \u00XX
      const char u[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
      out->append(u, sizeof u);
    }
  }
}

// The length of the well-formed UTF-8 sequence that lead byte `c` starts (0: none
// does) and the range its second byte must be in (the others are 80..BF); this
// excludes overlong forms, surrogates and code points above U+10FFFF.
struct Lead {
  int length;
  unsigned char low, high;
};
Lead LeadOf(unsigned char c) {
  if (c >= 0xC2 && c <= 0xDF) return {2, 0x80, 0xBF};
  if (c == 0xE0) return {3, 0xA0, 0xBF};
  if (c == 0xED) return {3, 0x80, 0x9F};
  if (c >= 0xE1 && c <= 0xEF) return {3, 0x80, 0xBF};
  if (c == 0xF0) return {4, 0x90, 0xBF};
  if (c >= 0xF1 && c <= 0xF3) return {4, 0x80, 0xBF};
  if (c == 0xF4) return {4, 0x80, 0x8F};
  return {0, 0, 0};
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

void AppendInt(std::string* out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

}  // namespace

void AppendJsonString(std::string* out, std::string_view s) {
  *out += '"';
  size_t i = 0;
  while (i < s.size()) {
    size_t plain = i;
    while (plain < s.size() && Plain(static_cast<unsigned char>(s[plain]))) ++plain;
    out->append(s.data() + i, plain - i);
    i = plain;
    if (i == s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      AppendEscapedAscii(out, c);
      ++i;
      continue;
    }
    const Lead lead = LeadOf(c);
    if (lead.length == 0) {  // a byte no sequence starts with
      *out += kReplacement;
      ++i;
      continue;
    }
    int n = 1;  // bytes of the sequence seen to be right so far
    while (n < lead.length && i + n < s.size()) {
      const auto b = static_cast<unsigned char>(s[i + n]);
      const unsigned char low = n == 1 ? lead.low : 0x80, high = n == 1 ? lead.high : 0xBF;
      if (b < low || b > high) break;
      ++n;
    }
    if (n == lead.length) {
      out->append(s.data() + i, n);
    } else {
      // Cut short (by a wrong byte, read again on its own, or by the end): one
      // replacement for the bytes before it.
      *out += kReplacement;
    }
    i += n;
  }
  *out += '"';
}

void AppendDecisionLine(std::string* out, std::string_view ts, const Decision& d, std::string_view worker) {
  // The keys in byte order, as a std::map-backed nlohmann::json object prints them.
  *out += "{\"attempt\":";
  AppendInt(out, d.attempt);
  *out += ",\"decision\":";
  AppendJsonString(out, DecisionName(d.kind));
  if (d.delay_ms) {
    *out += ",\"delay_ms\":";
    AppendInt(out, d.delay_ms);
  }
  *out += ",\"delivery\":";
  AppendInt(out, d.delivery_count);
  *out += ",\"event\":\"decision\",\"group\":";
  AppendJsonString(out, d.consumer_group);
  *out += ",\"key\":";
  AppendJsonString(out, d.key);
  *out += ",\"latency_us\":";
  AppendInt(out, d.latency_us);
  *out += ",\"level\":\"info\",\"msg_id\":";
  AppendJsonString(out, d.message_id);
  if (!d.reason.empty()) {
    *out += ",\"reason\":";
    AppendJsonString(out, d.reason);
  }
  if (d.kind == DecisionKind::kRetry) {
    *out += ",\"rung\":";
    AppendInt(out, d.rung);
  }
  *out += ",\"topic\":";
  AppendJsonString(out, d.topic);
  *out += ",\"ts\":";
  AppendJsonString(out, ts);
  *out += ",\"worker\":";
  AppendJsonString(out, worker);
  *out += "}\n";
}

}  // namespace idem::service
