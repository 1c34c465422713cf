// A JSON document whose numbers are kept as their exact text, for keys and
// fingerprints. A general-purpose JSON library turns numbers into doubles: two
// different 25-digit ids become one value (a lost payment), and 1e400 does not
// fit at all. Here a number is never converted; its canonical text is what a
// key or a fingerprint sees:
//   - integers (no fraction, no exponent): the decimal text as written; JSON
//     allows no leading zeros or '+', and "-0" becomes "0";
//   - other numbers: the text as written, except the exponent, which is
//     normalised to a lower-case 'e', a '-' only when negative, and no leading
//     zeros ("1.5E+07" becomes "1.5e7"). The mantissa is not rewritten, so 1.5
//     and 1.50 are two spellings and two fingerprints.
// Strings, literals, arrays and objects are as in RFC 8259; object members are
// kept sorted by name, a repeated name keeps its last value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/json_scan.h"
#include "idem/status.h"

namespace idem {

struct JsonMember;

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  // kBool: "true" or "false"; kNumber: the canonical text; kString: the decoded UTF-8.
  std::string text;
  std::vector<JsonValue> items;     // kArray
  std::vector<JsonMember> members;  // kObject, sorted by name, names unique

  // The member named `name`, or nullptr (also when this is not an object).
  const JsonValue* Find(std::string_view name) const;
  const char* KindName() const;  // "object", "array", "string", "number", "boolean", "null"
};

struct JsonMember {
  std::string name;
  JsonValue value;
};

// Parses `payload` after ScanJsonLimits passed it (depth, size, UTF-8). Fails
// with an InvalidArgument "payload is not valid JSON: <what> at byte N". Never throws
// for any input other than out of memory.
Result<JsonValue> ParseExactJson(std::string_view payload, const JsonLimits& limits);

// The compact canonical text: no whitespace, members sorted by name, strings
// escaped as JSON libraries commonly print them (\" \\ \b \f \n \r \t, other
// control characters as \u00xx, everything else as UTF-8), numbers in canonical
// form. For documents whose numbers are 64-bit integers or plain decimals such
// as 12.5, this is the text nlohmann::json's dump() prints, so fingerprints
// computed before numbers were kept exact stay the same.
std::string CanonicalJson(const JsonValue& value);

}  // namespace idem
