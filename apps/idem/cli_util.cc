#include "cli_util.h"

#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "connect/scheme_table.h"

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

// The same redaction as the wiring table's errors, so a password never shows
// in one place and not in another.
std::string RedactUrl(const std::string& url) { return connect::RedactedUrl(url); }

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

}  // namespace idem::cli
