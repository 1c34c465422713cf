// How the commands write --json: the same rules everywhere.
//   - ids (dead-letter ids, message ids) are JSON strings: RabbitMQ's
//     dead-letter ids exceed 2^53, where JSON readers that use doubles
//     (JavaScript, jq) would silently round them.
//   - bytes that may not be text (payloads, keys, header values) are written as
//     a UTF-8 string when they are valid UTF-8, and as base64 otherwise, so a
//     reader always gets them back byte-exact.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace idem::cli {

bool IsValidUtf8(std::string_view bytes);
std::string Base64(std::string_view bytes);

// Sets j[field] to `bytes` when they are valid UTF-8, else j[field + "_base64"]
// to their base64. Returns which: "utf-8" or "base64".
std::string PutBytes(nlohmann::json& j, const std::string& field, std::string_view bytes);

// Headers as an object of strings; a value that is not valid UTF-8 is written
// as {"base64": "..."}, a name that is not as "base64:...".
nlohmann::json HeadersJson(const std::map<std::string, std::string>& headers);

inline std::string IdString(int64_t id) { return std::to_string(id); }

// One line of JSON; never throws (what is not text was base64'd already).
std::string DumpLine(const nlohmann::json& j);

}  // namespace idem::cli
