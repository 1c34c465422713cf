#include "ops/reconcile/amount.h"

#include <cstdlib>
#include <limits>

namespace idem::reconcile {

Result<int64_t> ParseAmount(std::string_view text, int decimals) {
  const std::string shown(text);
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("amount '" + shown + "' " + why + " (write it like 199.00)");
  };
  if (text.empty()) return bad("is empty");
  bool negative = false;
  if (text[0] == '-' || text[0] == '+') {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  const size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  if (whole.empty() && fraction.empty()) return bad("has no digits");
  if (dot != std::string_view::npos && fraction.empty()) return bad("ends in '.'");
  if (static_cast<int>(fraction.size()) > decimals)
    return bad("has more than " + std::to_string(decimals) + " decimals");
  // Accumulate as a non-positive number so INT64_MIN stays reachable.
  int64_t value = 0;
  auto push = [&](char c) {
    if (c < '0' || c > '9') return false;
    const int digit = c - '0';
    if (value < (std::numeric_limits<int64_t>::min() + digit) / 10) return false;
    value = value * 10 - digit;
    return true;
  };
  for (char c : whole)
    if (!push(c)) return bad("is not a number that fits");
  for (char c : fraction)
    if (!push(c)) return bad("is not a number that fits");
  for (int i = static_cast<int>(fraction.size()); i < decimals; ++i)
    if (!push('0')) return bad("is too large");
  if (negative) return value;
  if (value == std::numeric_limits<int64_t>::min()) return bad("is too large");
  return -value;
}

std::string FormatAmount(int64_t minor, int decimals) {
  const bool negative = minor < 0;
  // Work on the magnitude as unsigned so INT64_MIN prints correctly.
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(minor) : static_cast<uint64_t>(minor);
  std::string digits = std::to_string(magnitude);
  if (decimals > 0) {
    if (digits.size() <= static_cast<size_t>(decimals))
      digits.insert(0, static_cast<size_t>(decimals) + 1 - digits.size(), '0');
    digits.insert(digits.size() - static_cast<size_t>(decimals), ".");
  }
  return negative ? "-" + digits : digits;
}

}  // namespace idem::reconcile
