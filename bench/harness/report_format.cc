#include "harness/report_format.h"

#include <cmath>
#include <cstdio>

namespace idem::bench {

std::string Int(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string Rate(double v) { return v > 0 ? Int(static_cast<int64_t>(std::llround(v))) : "—"; }

std::string MiB(int64_t kb) { return Fixed(static_cast<double>(kb) / 1024.0, 1) + " MiB"; }

}  // namespace idem::bench
