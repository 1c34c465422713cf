// ParseAmqpUrl: amqp://USER:PASSWORD@HOST:PORT/VHOST?name=value&...
// rabbitmq-c parses the part before '?'; the query carries RabbitMqOptions fields.
#include <amqp.h>

#include <charconv>
#include <sstream>

#include "idem/rabbitmq.h"
#include "source/url_query.h"

namespace idem {
namespace {

std::string PercentDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      int v = 0;
      auto [p, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
      if (ec == std::errc() && p == s.data() + i + 3) {
        out.push_back(static_cast<char>(v));
        i += 2;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

template <typename T>
bool ParseNumber(const std::string& s, T* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

Status SetOption(RabbitMqOptions& o, const std::string& name, const std::string& value) {
  auto number = [&](auto* field) -> Status {
    if (!ParseNumber(value, field) || *field < 0)
      return Status::InvalidArgument("amqp:// URL: '" + name + "=" + value + "' is not a non-negative number");
    return Status::OK();
  };
  if (name == "queue") o.queue = value;
  else if (name == "exchange") o.exchange = value;
  else if (name == "dead_queue") o.dead_queue = value;
  else if (name == "prefetch") return number(&o.prefetch);
  else if (name == "heartbeat_s") return number(&o.heartbeat_s);
  else if (name == "connect_timeout_ms") return number(&o.connect_timeout_ms);
  else if (name == "rpc_timeout_ms") return number(&o.rpc_timeout_ms);
  else if (name == "release_min_delay_ms") return number(&o.release_min_delay_ms);
  else if (name == "dead_scan_limit") return number(&o.dead_scan_limit);
  else if (name == "max_message_bytes") return number(&o.max_message_bytes);
  else if (name == "known_wait_ms") {
    o.known_wait_ms.clear();
    std::stringstream in(value);
    for (std::string item; std::getline(in, item, ',');) {
      int64_t ms = 0;
      if (!ParseNumber(item, &ms) || ms <= 0)
        return Status::InvalidArgument("amqp:// URL: known_wait_ms takes positive milliseconds, e.g. 30000,60000");
      o.known_wait_ms.push_back(ms);
    }
  } else {
    return Status::InvalidArgument(
        "amqp:// URL: unknown parameter '" + name +
        "' (known: queue, exchange, dead_queue, prefetch, heartbeat_s, connect_timeout_ms, rpc_timeout_ms, "
        "release_min_delay_ms, dead_scan_limit, max_message_bytes, known_wait_ms)");
  }
  return Status::OK();
}

}  // namespace

Result<RabbitMqOptions> ParseAmqpUrl(const std::string& url) {
  if (url.rfind("amqps://", 0) == 0)
    return Status::InvalidArgument("amqps:// (TLS) is not supported by this build; use amqp://");
  if (url.rfind("amqp://", 0) != 0) return Status::InvalidArgument("not an amqp:// URL: '" + url + "'");
  RabbitMqOptions o;
  const size_t q = url.find('?');
  std::string base = url.substr(0, q);
  amqp_connection_info info;
  if (amqp_parse_url(base.data(), &info) != AMQP_STATUS_OK)
    return Status::InvalidArgument("cannot parse '" + url.substr(0, q) +
                                   "': expected amqp://USER:PASSWORD@HOST:PORT/VHOST");
  // rabbitmq-c takes ":0" (and nothing else outside 1-65535): it could only fail at connect time.
  if (info.port < 1 || info.port > 65535)
    return Status::InvalidArgument("amqp:// URL: the port must be 1-65535 (e.g. 5672), not " +
                                   std::to_string(info.port));
  o.host = info.host;
  o.port = info.port;
  o.vhost = info.vhost;
  o.user = info.user;
  o.password = info.password;
  if (q != std::string::npos)
    IDEM_RETURN_IF_ERROR(ForEachQueryParameter(url.substr(q + 1), "amqp://", [&](const std::string& name,
                                                                                const std::string& value) {
      return SetOption(o, PercentDecode(name), PercentDecode(value));
    }));
  if (o.queue.empty()) return Status::InvalidArgument("amqp:// URL: queue= must not be empty");
  if (o.prefetch == 0 || o.prefetch > 65535)
    return Status::InvalidArgument("amqp:// URL: prefetch must be between 1 and 65535");
  return o;
}

}  // namespace idem
