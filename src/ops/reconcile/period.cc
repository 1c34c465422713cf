#include "ops/reconcile/period.h"

#include <charconv>

namespace idem::reconcile {
namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool Digits(std::string_view s, size_t at, size_t n, int64_t* out) {
  if (at + n > s.size()) return false;
  int64_t v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

bool Expect(std::string_view s, size_t at, char c) { return at < s.size() && s[at] == c; }

}  // namespace

Result<int64_t> ParseTimeMs(std::string_view s) {
  const Status bad = Status::InvalidArgument(
      "'" + std::string(s) +
      "' is not a time: write 2026-09-28 (midnight UTC), 2026-09-28T10:00:00Z, 2026-09-28T10:00:00+08:00 or "
      "milliseconds since the epoch");
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos) {
    int64_t ms = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), ms);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return bad;
    return ms;
  }
  int64_t y, mo, d, h = 0, mi = 0, sec = 0, ms = 0, offset_min = 0;
  if (!Digits(s, 0, 4, &y) || !Expect(s, 4, '-') || !Digits(s, 5, 2, &mo) || !Expect(s, 7, '-') || !Digits(s, 8, 2, &d))
    return bad;
  size_t at = 10;
  if (at < s.size()) {
    if (!Expect(s, at, 'T') || !Digits(s, at + 1, 2, &h) || !Expect(s, at + 3, ':') || !Digits(s, at + 4, 2, &mi) ||
        !Expect(s, at + 6, ':') || !Digits(s, at + 7, 2, &sec))
      return bad;
    at += 9;
    if (Expect(s, at, '.')) {
      size_t n = 0;
      int64_t scale = 100;
      for (++at; at < s.size() && s[at] >= '0' && s[at] <= '9'; ++at, ++n) {
        ms += (s[at] - '0') * scale;
        scale /= 10;
      }
      if (n == 0) return bad;
    }
    if (Expect(s, at, 'Z')) {
      ++at;
    } else if (Expect(s, at, '+') || Expect(s, at, '-')) {
      int64_t oh, om;
      if (!Digits(s, at + 1, 2, &oh) || !Expect(s, at + 3, ':') || !Digits(s, at + 4, 2, &om) || oh > 23 || om > 59)
        return bad;
      offset_min = (s[at] == '-' ? -1 : 1) * (oh * 60 + om);
      at += 6;
    } else {
      return bad;  // a wall-clock time without a zone is ambiguous
    }
    if (at != s.size()) return bad;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return bad;
  const int64_t seconds = DaysFromCivil(y, mo, d) * 86'400 + h * 3600 + mi * 60 + sec - offset_min * 60;
  return seconds * 1000 + ms;
}

}  // namespace idem::reconcile
