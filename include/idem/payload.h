// Payload: a read-only view of a message's JSON payload, as the pipeline parsed
// it to derive the key. Handlers read fields from here instead of parsing the
// bytes again, and see numbers exactly as the key did: by their text, never
// through a double (a 25-digit id stays 25 digits; 1e400 is just text).
//
// Paths: a top-level member name ("payment_id") or, starting with '/', a JSON
// pointer as in RFC 6901 ("/order/id", "/items/0/sku"; "~1" is '/', "~0" is '~').
//
// Errors from the typed getters are InvalidArgument and name the field and what
// was found, so `HandlerResult::FromStatus` parks the message with that reason:
// a payload that lacks what the handler needs is a bad payload, not a glitch.
//
// Thread safety: immutable; copies share the parsed document.
// User guide: docs/library.md (reading the payload).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "idem/status.h"

namespace idem {

struct JsonValue;  // internal: the parsed document

class Payload {
 public:
  enum class Kind { kMissing, kNull, kBool, kNumber, kString, kArray, kObject };

  // Parses `bytes` with the pipeline's default limits (nesting depth, UTF-8).
  // For handlers run outside the pipeline (tests, tools); the pipeline hands a
  // handler the Payload it already parsed.
  static Result<Payload> Parse(std::string_view bytes);

  // What is at `path` (kMissing when nothing is).
  Kind KindOf(std::string_view path) const;
  bool Has(std::string_view path) const { return KindOf(path) != Kind::kMissing; }

  // A string (decoded), a number (its canonical exact text) or a boolean
  // ("true"/"false") at `path`; nullopt when missing, null, an array or an object.
  std::optional<std::string> Text(std::string_view path) const;

  // A string at `path`; InvalidArgument when it is missing or not a string.
  Result<std::string> String(std::string_view path) const;
  // A whole number at `path` that fits in 64 bits ("12" or "-3", not "12.5",
  // "1e3" or a 25-digit id); InvalidArgument otherwise, saying which.
  Result<int64_t> Int(std::string_view path) const;
  // true or false at `path`; InvalidArgument otherwise.
  Result<bool> Bool(std::string_view path) const;

  // An empty payload: every path is missing.
  Payload() = default;
  // For the pipeline: wraps a document it parsed.
  explicit Payload(std::shared_ptr<const JsonValue> doc) : doc_(std::move(doc)) {}

 private:
  const JsonValue* Find(std::string_view path) const;
  std::shared_ptr<const JsonValue> doc_;
};

}  // namespace idem
