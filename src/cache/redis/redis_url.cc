#include "cache/redis/redis_url.h"

#include <charconv>

namespace idem::redis {
namespace {

bool ParseNumber(std::string_view s, int max, int* out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size() && *out >= 0 && *out <= max;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Passwords may carry reserved characters as %XX.
bool PercentDecode(std::string_view s, std::string* out) {
  out->clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      *out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return false;
    const int hi = HexDigit(s[i + 1]), lo = HexDigit(s[i + 2]);
    if (hi < 0 || lo < 0) return false;
    *out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return true;
}

}  // namespace

Result<Endpoint> ParseRedisUrl(const std::string& url) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("bad Redis URL '" + url + "': " + why +
                                   " (expected redis://[[user]:password@]host[:port][/db])");
  };
  constexpr std::string_view kScheme = "redis://";
  if (url.rfind(kScheme, 0) != 0) return bad("it must start with redis://");
  std::string_view rest = std::string_view(url).substr(kScheme.size());
  Endpoint e;

  if (size_t at = rest.rfind('@'); at != std::string_view::npos) {
    std::string_view auth = rest.substr(0, at);
    rest = rest.substr(at + 1);
    size_t colon = auth.find(':');
    std::string_view user = colon == std::string_view::npos ? std::string_view() : auth.substr(0, colon);
    std::string_view password = colon == std::string_view::npos ? auth : auth.substr(colon + 1);
    if (!PercentDecode(user, &e.user) || !PercentDecode(password, &e.password)) return bad("bad %XX escape");
  }
  if (size_t slash = rest.find('/'); slash != std::string_view::npos) {
    std::string_view db = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
    if (!db.empty() && !ParseNumber(db, 1 << 20, &e.db)) return bad("the database must be a number");
  }
  std::string_view host = rest, port;
  if (!rest.empty() && rest[0] == '[') {  // [IPv6]:port
    size_t close = rest.find(']');
    if (close == std::string_view::npos) return bad("unclosed [");
    host = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') return bad("junk after ]");
      port = rest.substr(close + 2);
    }
  } else if (size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (host.empty()) return bad("no host");
  e.host = std::string(host);
  if (!port.empty() && (!ParseNumber(port, 65535, &e.port) || e.port == 0)) return bad("the port must be 1-65535");
  return e;
}

}  // namespace idem::redis
