#include "store/mysql/my_url.h"

#include <charconv>

namespace idem::mysql {
namespace {

constexpr const char* kForm = "mysql://USER:PASSWORD@HOST:PORT/DB";

// The URL without its user and password: errors end up in logs.
std::string WithoutCredentials(const std::string& url) {
  const auto scheme_end = url.find("://");
  const auto at = url.rfind('@');
  if (scheme_end == std::string::npos || at == std::string::npos || at < scheme_end) return url;
  return url.substr(0, scheme_end + 3) + "***@" + url.substr(at + 1);
}

Status Bad(const std::string& url, const std::string& what) {
  return Status::InvalidArgument("MySQL store URL '" + WithoutCredentials(url) + "': " + what + " (write " +
                                 kForm + ")");
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool PercentDecode(std::string_view in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out->push_back(in[i]);
      continue;
    }
    if (i + 2 >= in.size()) return false;
    const int hi = HexDigit(in[i + 1]), lo = HexDigit(in[i + 2]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return true;
}

template <class Int>
bool ParseNumber(std::string_view s, Int* out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

}  // namespace

Result<ConnectParams> ParseMysqlUrl(const std::string& url) {
  std::string_view rest(url);
  bool matched = false;
  for (std::string_view prefix : {"mysql://", "mariadb://"}) {
    if (rest.substr(0, prefix.size()) == prefix) {
      rest.remove_prefix(prefix.size());
      matched = true;
      break;
    }
  }
  if (!matched) return Bad(url, "it does not start with mysql:// or mariadb://");
  ConnectParams p;
  std::string_view query;
  if (auto q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  const auto slash = rest.find('/');
  if (slash == std::string_view::npos || slash + 1 == rest.size()) return Bad(url, "it names no database");
  if (!PercentDecode(rest.substr(slash + 1), &p.database)) return Bad(url, "the database name has a broken %-escape");
  std::string_view authority = rest.substr(0, slash);
  if (auto at = authority.rfind('@'); at != std::string_view::npos) {
    std::string_view userinfo = authority.substr(0, at);
    authority = authority.substr(at + 1);
    std::string_view user = userinfo, password;
    if (auto colon = userinfo.find(':'); colon != std::string_view::npos) {
      user = userinfo.substr(0, colon);
      password = userinfo.substr(colon + 1);
    }
    if (!PercentDecode(user, &p.user) || !PercentDecode(password, &p.password))
      return Bad(url, "the user or password has a broken %-escape");
  }
  std::string_view host = authority;
  if (auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    if (!ParseNumber(authority.substr(colon + 1), &p.port) || p.port == 0 || p.port > 65535)
      return Bad(url, "the port is not a number from 1 to 65535");
  }
  if (host.empty()) return Bad(url, "it names no host");
  p.host = std::string(host);
  while (!query.empty()) {
    const auto amp = query.find('&');
    std::string_view item = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    constexpr std::string_view kTimeout = "connect_timeout=";
    if (item.substr(0, kTimeout.size()) == kTimeout) {
      if (!ParseNumber(item.substr(kTimeout.size()), &p.connect_timeout_s) || p.connect_timeout_s <= 0)
        return Bad(url, "connect_timeout must be a whole number of seconds above 0");
      continue;
    }
    return Bad(url, "unknown option '" + std::string(item) + "'; the only option is connect_timeout=SECONDS");
  }
  return p;
}

}  // namespace idem::mysql
