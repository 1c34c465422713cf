#include "core/json_scan.h"

#include <string>

namespace idem {

bool ValidUtf8(std::string_view s, size_t* bad_at) {
  size_t i = 0;
  const size_t n = s.size();
  auto fail = [&] {
    if (bad_at) *bad_at = i;
    return false;
  };
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if ((c & 0xe0) == 0xc0) len = 2, cp = c & 0x1f;
    else if ((c & 0xf0) == 0xe0) len = 3, cp = c & 0x0f;
    else if ((c & 0xf8) == 0xf0) len = 4, cp = c & 0x07;
    else return fail();
    if (i + len > n) return fail();
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return fail();
      cp = (cp << 6) | (cc & 0x3f);
    }
    const bool overlong = (len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    if (overlong || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return fail();
    i += len;
  }
  return true;
}

Status ScanJsonLimits(std::string_view payload, const JsonLimits& limits) {
  if (payload.size() > limits.max_bytes)
    return Status::InvalidArgument("payload is " + std::to_string(payload.size()) + " bytes, over the limit of " +
                                   std::to_string(limits.max_bytes) + " (max_payload_bytes)");
  // Depth first: it is the check that protects the stack, and its reason is the
  // one an operator needs even when the payload is also broken in other ways.
  size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < payload.size(); ++i) {
    const char c = payload[i];
    if (in_string) {
      if (c == '\\') ++i;  // the escaped character cannot end the string
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
    }
    else if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  const size_t limit = limits.EffectiveDepth();
  if (deepest > limit)
    return Status::InvalidArgument("payload nests " + std::to_string(deepest) + " levels deep, over the limit of " +
                                   std::to_string(limit) + " (max_json_depth)");
  size_t bad_at = 0;
  if (!ValidUtf8(payload, &bad_at))
    return Status::InvalidArgument("payload is not valid UTF-8 (byte " + std::to_string(bad_at) + ")");
  return Status::OK();
}

}  // namespace idem
