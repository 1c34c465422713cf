#include "core/key.h"

#include <memory>

// Compiled into this file: idem::core then needs no libxxhash at link time,
// so a program that uses idem needs no xxHash package installed.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <new>

#include "core/json_exact.h"
#include "core/key_length.h"
#include "core/json_scan.h"

namespace idem {
namespace {

// A field value as key text: strings as they are, numbers in canonical form
// (their exact text: two 25-digit ids stay two keys, 1e400 is a key like any
// other), booleans as true/false. Objects, arrays, null and "" identify nothing.
std::string FieldText(const JsonValue& v, const std::string& field, std::string* error) {
  switch (v.kind) {
    case JsonValue::Kind::kString:
      if (v.text.empty()) *error = "key field '" + field + "' is empty";
      return v.text;
    case JsonValue::Kind::kNumber:
    case JsonValue::Kind::kBool: return v.text;
    case JsonValue::Kind::kNull: *error = "key field '" + field + "' is null"; return {};
    default:
      *error = "key field '" + field + "' is an " + std::string(v.KindName()) + ", not a string or number";
      return {};
  }
}

void AppendEscaped(std::string* out, std::string_view part) {
  for (char c : part) {
    if (c == ':' || c == '\\') out->push_back('\\');
    out->push_back(c);
  }
}

// Appends ":value" for each field (escaped), or says which field is unusable.
Status AppendFieldValues(const JsonValue& doc, const std::vector<std::string>& fields, std::string* out) {
  for (const std::string& f : fields) {
    const JsonValue* v = doc.Find(f);
    if (!v) return Status::InvalidArgument("no idempotency key: payload has no field '" + f + "'");
    std::string error;
    std::string text = FieldText(*v, f, &error);
    if (!error.empty()) return Status::InvalidArgument("no idempotency key: " + error);
    out->push_back(':');
    AppendEscaped(out, text);
  }
  return Status::OK();
}

// The limits first (one linear pass, no recursion), then the exact parse.
Result<JsonValue> ParseObject(std::string_view payload, const JsonLimits& limits) {
  IDEM_RETURN_IF_ERROR(ScanJsonLimits(payload, limits));
  auto doc = ParseExactJson(payload, limits);
  if (!doc.ok()) return doc.status();
  if (doc->kind != JsonValue::Kind::kObject)
    return Status::InvalidArgument("payload is JSON but not an object (it is " + std::string(doc->KindName()) + ")");
  return doc;
}

// The second line of defence: nothing derived from a payload may escape as an
// exception (the pipeline would lose the whole batch, a CLI would abort).
template <typename Fn>
auto NeverThrows(Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return Status::InvalidArgument("payload needs more memory to parse than is available");
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("cannot derive an idempotency key: ") + e.what());
  } catch (...) {
    return Status::InvalidArgument("cannot derive an idempotency key: unknown error");
  }
}

Result<MessageIdentity> Derive(const Message& message, const HandlerSpec& spec, const JsonLimits& limits) {
  auto parsed = ParseObject(message.payload, limits);
  if (!parsed.ok()) return parsed.status();
  const JsonValue& doc = *parsed;

  MessageIdentity id;
  const std::string& prefix = spec.key.prefix.empty() ? spec.topic : spec.key.prefix;
  if (!spec.key.fields.empty()) {
    id.key = prefix;
    IDEM_RETURN_IF_ERROR(AppendFieldValues(doc, spec.key.fields, &id.key));
    if (id.key.size() > kMaxKeyBytes) return Status::InvalidArgument(KeyTooLongReason(prefix, id.key.size()));
  } else if (!message.key.empty()) {
    // The same rule `idem publish` applied before sending (core/key_length.h).
    if (std::string why = CheckDerivedKeyLength(prefix, message.key); !why.empty())
      return Status::InvalidArgument(why);
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

  // Members sorted, no whitespace, numbers exact: whitespace and member order do
  // not change the fingerprint, a different number always does.
  if (spec.fingerprint_fields.empty()) {
    id.fingerprint = Fingerprint(CanonicalJson(doc));
  } else {
    JsonValue part;
    part.kind = JsonValue::Kind::kObject;
    std::vector<std::string> names = spec.fingerprint_fields;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const std::string& f : names) {
      const JsonValue* v = doc.Find(f);
      part.members.push_back({f, v ? *v : JsonValue{}});  // a missing field counts as null
    }
    id.fingerprint = Fingerprint(CanonicalJson(part));
  }
  id.payload = Payload(std::make_shared<const JsonValue>(std::move(*parsed)));  // handed to the handler
  return id;
}

}  // namespace

Result<std::string> BusinessKeyFromPayload(std::string_view payload, const std::vector<std::string>& fields) {
  return BusinessKeyFromPayload(payload, fields, JsonLimits{});
}

Result<std::string> BusinessKeyFromPayload(std::string_view payload, const std::vector<std::string>& fields,
                                           const JsonLimits& limits) {
  return NeverThrows([&]() -> Result<std::string> {
    auto doc = ParseObject(payload, limits);
    if (!doc.ok()) return doc.status();
    std::string key;
    IDEM_RETURN_IF_ERROR(AppendFieldValues(*doc, fields, &key));
    key.erase(0, 1);  // the leading ':'
    if (std::string why = ValidateKey(key); !why.empty()) return Status::InvalidArgument(why);
    return key;
  });
}

Status CheckJsonObject(std::string_view payload) { return CheckJsonObject(payload, JsonLimits{}); }

Status CheckJsonObject(std::string_view payload, const JsonLimits& limits) {
  return NeverThrows([&]() -> Status { return ParseObject(payload, limits).status(); });
}

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
  return DeriveIdentity(message, spec, JsonLimits{});
}

Result<MessageIdentity> DeriveIdentity(const Message& message, const HandlerSpec& spec, const JsonLimits& limits) {
  return NeverThrows([&]() -> Result<MessageIdentity> { return Derive(message, spec, limits); });
}

}  // namespace idem
