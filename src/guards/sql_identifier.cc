#include "guards/sql_identifier.h"

#include <string>

namespace idem::guards {

bool IsSqlIdentifier(std::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(name[0])) return false;
  for (char c : name)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

Status CheckIdentifiers(std::initializer_list<std::string_view> names) {
  for (std::string_view n : names)
    if (!IsSqlIdentifier(n))
      return Status::InvalidArgument("'" + std::string(n) +
                                     "' is not a plain SQL identifier (letters, digits, '_'; set by code)");
  return Status::OK();
}

std::string ParameterMarkers(size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += i ? ", ?" : "?";
  return out;
}

}  // namespace idem::guards
