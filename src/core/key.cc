#include "core/key.h"

#include <xxhash.h>

#include <cstdio>
#include <nlohmann/json.hpp>

namespace idem {
namespace {

using nlohmann::json;

bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
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
    else return false;
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    const bool overlong = (len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    if (overlong || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += len;
  }
  return true;
}

// A field value as key text: strings as they are, integers in decimal, other
// scalars as compact JSON. Objects, arrays, null and "" do not identify anything.
std::string FieldText(const json& v, const std::string& field, std::string* error) {
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s.empty()) *error = "key field '" + field + "' is empty";
    return s;
  }
  if (v.is_number_integer() || v.is_number_unsigned() || v.is_boolean() || v.is_number_float())
    return v.dump();
  if (v.is_null()) *error = "key field '" + field + "' is null";
  else *error = "key field '" + field + "' is an " + std::string(v.type_name()) + ", not a string or number";
  return {};
}

void AppendEscaped(std::string* out, std::string_view part) {
  for (char c : part) {
    if (c == ':' || c == '\\') out->push_back('\\');
    out->push_back(c);
  }
}

// Appends ":value" for each field (escaped), or says which field is unusable.
Status AppendFieldValues(const json& doc, const std::vector<std::string>& fields, std::string* out) {
  for (const std::string& f : fields) {
    auto it = doc.find(f);
    if (it == doc.end()) return Status::InvalidArgument("no idempotency key: payload has no field '" + f + "'");
    std::string error;
    std::string text = FieldText(*it, f, &error);
    if (!error.empty()) return Status::InvalidArgument("no idempotency key: " + error);
    out->push_back(':');
    AppendEscaped(out, text);
  }
  return Status::OK();
}

Result<json> ParseObject(std::string_view payload) {
  json doc = json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    // Parse again with exceptions only to get the position and cause for the reason.
    std::string why = "payload is not valid JSON";
    try {
      json reparsed = json::parse(payload);  // throws: only the exception is wanted here
      (void)reparsed;
    } catch (const json::parse_error& e) {
      why += std::string(": ") + e.what();
    }
    return Status::InvalidArgument(why);
  }
  if (!doc.is_object()) return Status::InvalidArgument("payload is JSON but not an object");
  return doc;
}

}  // namespace

Result<std::string> BusinessKeyFromPayload(std::string_view payload, const std::vector<std::string>& fields) {
  auto doc = ParseObject(payload);
  if (!doc.ok()) return doc.status();
  std::string key;
  IDEM_RETURN_IF_ERROR(AppendFieldValues(*doc, fields, &key));
  key.erase(0, 1);  // the leading ':'
  if (std::string why = ValidateKey(key); !why.empty()) return Status::InvalidArgument(why);
  return key;
}

Status CheckJsonObject(std::string_view payload) { return ParseObject(payload).status(); }

std::string ValidateKey(std::string_view key) {
  if (key.empty()) return "the idempotency key is empty";
  if (key.size() > kMaxKeyBytes)
    return "the idempotency key is " + std::to_string(key.size()) + " bytes, over the limit of " +
           std::to_string(kMaxKeyBytes);
  for (char c : key) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return c == '\0' ? "the idempotency key contains a NUL byte"
                       : "the idempotency key contains a control character";
  }
  if (!ValidUtf8(key)) return "the idempotency key is not valid UTF-8";
  return {};
}

std::string Fingerprint(std::string_view bytes) {
  XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return std::string(buf, 32);
}

Result<MessageIdentity> DeriveIdentity(const Message& message, const HandlerSpec& spec) {
  auto parsed = ParseObject(message.payload);
  if (!parsed.ok()) return parsed.status();
  const json& doc = *parsed;

  MessageIdentity id;
  const std::string& prefix = spec.key.prefix.empty() ? spec.topic : spec.key.prefix;
  if (!spec.key.fields.empty()) {
    id.key = prefix;
    IDEM_RETURN_IF_ERROR(AppendFieldValues(doc, spec.key.fields, &id.key));
  } else if (!message.key.empty()) {
    id.key = prefix + ":";
    AppendEscaped(&id.key, message.key);
  } else if (spec.key.allow_broker_id && !message.id.empty()) {
    id.key = prefix + ":msgid:";
    AppendEscaped(&id.key, message.id);
  } else {
    return Status::InvalidArgument(
        "no idempotency key: the message has no business key and the handler for topic '" + spec.topic +
        "' names no key fields");
  }
  if (std::string why = ValidateKey(id.key); !why.empty()) return Status::InvalidArgument(why);

  // nlohmann's object keeps keys sorted, so dump() is a canonical form:
  // whitespace and key order do not change the fingerprint.
  if (spec.fingerprint_fields.empty()) {
    id.fingerprint = Fingerprint(doc.dump());
  } else {
    json part = json::object();
    for (const std::string& f : spec.fingerprint_fields) {
      auto it = doc.find(f);
      part[f] = it == doc.end() ? json() : *it;
    }
    id.fingerprint = Fingerprint(part.dump());
  }
  return id;
}

}  // namespace idem
