#include "cli_util.h"

#include <cstdlib>
#include <ctime>
#include <filesystem>

namespace idem::cli {

std::unique_ptr<Broker> OpenQueueOrDie(const std::string& url, QueueAccess access) {
  if (url.empty()) throw CliError("no queue given: pass --queue FILE (the embedded queue's file) or a broker URL", 2);
  BrokerOptions options;
  options.create_if_missing = access == QueueAccess::kCreate;
  auto q = OpenBroker(url, options, Env::Default());
  if (!q.ok() && q.status().IsNotFound())
    throw CliError("no queue at '" + RedactUrl(url) + "': check --queue; `idem publish` creates it (" +
                   q.status().message() + ")");
  if (!q.ok()) throw CliError("cannot open queue '" + RedactUrl(url) + "': " + q.status().ToString());
  return std::move(*q);
}

std::string RedactUrl(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const size_t at = url.find('@', scheme + 3);
  const size_t colon = url.find(':', scheme + 3);
  if (at == std::string::npos || colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

std::string FormatTimeMs(int64_t ms) {
  if (ms == 0) return "-";
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms % 1000));
  return out;
}

std::string ResolveActor(const std::string& flag) {
  if (!flag.empty()) return flag;
  for (const char* var : {"IDEM_ACTOR", "USER", "LOGNAME"})
    if (const char* v = std::getenv(var); v && *v) return v;
  return "unknown";
}

}  // namespace idem::cli
