#include "json_out.h"

namespace idem::cli {

using nlohmann::json;

bool IsValidUtf8(std::string_view bytes) {
  // nlohmann's strict serializer is a complete UTF-8 check (overlong forms and
  // surrogates included); one more copy of a decoder would only drift from it.
  try {
    (void)json(std::string(bytes)).dump(-1, ' ', false, json::error_handler_t::strict);
    return true;
  } catch (const json::type_error&) {
    return false;
  }
}

std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = static_cast<uint8_t>(bytes[i]) << 16 | static_cast<uint8_t>(bytes[i + 1]) << 8 |
                       static_cast<uint8_t>(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out.push_back(kAlphabet[(v >> shift) & 63]);
  }
  if (const size_t rest = bytes.size() - i; rest > 0) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

std::string PutBytes(json& j, const std::string& field, std::string_view bytes) {
  if (IsValidUtf8(bytes)) {
    j[field] = std::string(bytes);
    return "utf-8";
  }
  j[field + "_base64"] = Base64(bytes);
  return "base64";
}

json HeadersJson(const std::map<std::string, std::string>& headers) {
  json out = json::object();
  for (const auto& [name, value] : headers) {
    // A header name that is not UTF-8 cannot be a JSON key as it is (AMQP
    // field names are byte strings): it is written as "base64:" + its base64.
    const std::string key = IsValidUtf8(name) ? name : "base64:" + Base64(name);
    out[key] = IsValidUtf8(value) ? json(value) : json{{"base64", Base64(value)}};
  }
  return out;
}

std::string DumpLine(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace idem::cli
