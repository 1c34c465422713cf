#include "idem/sql.h"

namespace idem {

int64_t AsInt(const Value& v, int64_t fallback) {
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) {
    // Converting a double outside int64's range (or NaN) is undefined behaviour.
    constexpr double kLimit = 9223372036854775808.0;  // 2^63
    return *d >= -kLimit && *d < kLimit ? static_cast<int64_t>(*d) : fallback;
  }
  if (const auto* s = std::get_if<std::string>(&v)) {
    try {
      return std::stoll(*s);
    } catch (...) {
      return fallback;
    }
  }
  return fallback;
}

std::string AsText(const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* b = std::get_if<Blob>(&v)) return b->bytes;
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return std::to_string(*d);
  return {};
}

bool IsNull(const Value& v) { return std::holds_alternative<std::nullptr_t>(v); }

}  // namespace idem
