#include "cli_checks.h"

#include <charconv>
#include <cmath>
#include <string>

namespace idem::cli {
namespace {

// Parses all of `text` as a decimal number; false on anything else. from_chars
// reads base 10 only and no leading '+' or spaces; unsigned types refuse '-'.
template <typename T>
bool ParseWhole(const std::string& text, T* out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string Got(const std::string& text) { return " (got '" + text + "')"; }

std::string Plain(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

template <typename T>
CLI::Validator WholeIn(T lo, T hi) {
  const std::string range = std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        T v{};
        if (!ParseWhole(text, &v) || v < lo || v > hi) return "must be a whole number from " + range + Got(text);
        text = std::to_string(v);  // what CLI11 converts next: no leading zeros (octal), no sign
        return {};
      },
      range);
}

}  // namespace

CLI::Validator IntegerIn(int64_t lo, int64_t hi) { return WholeIn<int64_t>(lo, hi); }

CLI::Validator UnsignedIn(uint64_t lo, uint64_t hi) { return WholeIn<uint64_t>(lo, hi); }

CLI::Validator NumberIn(double lo, double hi, bool lo_included, bool hi_included) {
  const std::string range = (lo_included ? "at least " : "above ") + Plain(lo) + " and " +
                            (hi_included ? "at most " : "below ") + Plain(hi);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double v = 0;
        const bool in = ParseWhole(text, &v) && std::isfinite(v) && (lo_included ? v >= lo : v > lo) &&
                        (hi_included ? v <= hi : v < hi);
        if (!in) return "must be a number " + range + Got(text);
        return {};
      },
      range);
}

}  // namespace idem::cli
