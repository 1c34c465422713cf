// ParseKafkaUrl: kafka://HOST:PORT[,HOST:PORT…]/TOPIC[,TOPIC…]?name=value&…
#include <cctype>
#include <charconv>
#include <sstream>

#include "idem/kafka.h"
#include "source/url_query.h"

namespace idem {
namespace {

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

template <typename T>
bool ParseNumber(const std::string& s, T* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

// Kafka's own rule for topic names: 1–249 of [a-zA-Z0-9._-].
bool ValidTopic(const std::string& t) {
  if (t.empty() || t.size() > 249 || t == "." || t == "..") return false;
  for (char c : t)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

Status SetOption(KafkaOptions& o, const std::string& name, const std::string& value) {
  auto positive = [&](auto* field) -> Status {
    if (!ParseNumber(value, field) || *field <= 0)
      return Status::InvalidArgument("kafka:// URL: '" + name + "=" + value + "' is not a positive number");
    return Status::OK();
  };
  if (name.rfind("rdkafka.", 0) == 0 && name.size() > 8) {
    o.rdkafka[name.substr(8)] = value;
  } else if (name == "group") {
    if (value.empty()) return Status::InvalidArgument("kafka:// URL: group= needs a consumer group id");
    o.group = value;
  } else if (name == "assignor") {
    if (value != "cooperative-sticky" && value != "range" && value != "roundrobin")
      return Status::InvalidArgument("kafka:// URL: assignor='" + value +
                                     "' is not one of cooperative-sticky, range, roundrobin");
    o.assignor = value;
  } else if (name == "static_membership") {
    if (value != "true" && value != "false")
      return Status::InvalidArgument("kafka:// URL: static_membership='" + value + "' is not true or false");
    o.static_membership = value == "true";
  } else if (name == "instance_id") {
    if (!ValidTopic(value))
      return Status::InvalidArgument("kafka:// URL: instance_id='" + value +
                                     "' is not an id (1-249 characters of a-z A-Z 0-9 . _ -)");
    o.instance_id = value;
  } else if (name == "session_timeout_ms") {
    return positive(&o.session_timeout_ms);
  } else if (name == "max_poll_interval_ms") {
    return positive(&o.max_poll_interval_ms);
  } else if (name == "commit_interval_ms") {
    return positive(&o.commit_interval_ms);
  } else if (name == "request_timeout_ms") {
    return positive(&o.request_timeout_ms);
  } else if (name == "prefetch") {
    return positive(&o.prefetch);
  } else if (name == "max_waiting") {
    return positive(&o.max_waiting);
  } else if (name == "retry_delays_ms") {
    o.retry_delays_ms.clear();
    for (const std::string& item : SplitComma(value)) {
      int64_t ms = 0;
      if (!ParseNumber(item, &ms) || ms <= 0)
        return Status::InvalidArgument("kafka:// URL: retry_delays_ms takes positive milliseconds, e.g. 1000,30000");
      o.retry_delays_ms.push_back(ms);
    }
    if (o.retry_delays_ms.empty())
      return Status::InvalidArgument("kafka:// URL: retry_delays_ms needs at least one delay");
  } else if (name == "retry_mode") {
    if (value != "ordered" && value != "retry_topics")
      return Status::InvalidArgument("kafka:// URL: retry_mode='" + value + "' is not one of ordered, retry_topics");
    o.retry_mode = value == "ordered" ? RetryMode::kOrdered : RetryMode::kRetryTopics;
  } else {
    return Status::InvalidArgument("kafka:// URL: unknown parameter '" + name +
                                   "' (known: group, assignor, static_membership, instance_id, session_timeout_ms, "
                                   "max_poll_interval_ms, commit_interval_ms, request_timeout_ms, prefetch, max_waiting, "
                                   "retry_delays_ms, retry_mode, "
                                   "rdkafka.NAME)");
  }
  return Status::OK();
}

}  // namespace

Result<KafkaOptions> ParseKafkaUrl(const std::string& url) {
  static constexpr std::string_view kScheme = "kafka://";
  if (url.rfind(kScheme, 0) != 0) return Status::InvalidArgument("not a kafka:// URL: '" + url + "'");
  KafkaOptions o;
  const size_t q = url.find('?');
  const std::string base = url.substr(kScheme.size(), q == std::string::npos ? std::string::npos : q - kScheme.size());
  const size_t slash = base.find('/');
  const std::string servers = base.substr(0, slash);
  const std::string topics = slash == std::string::npos ? "" : base.substr(slash + 1);
  if (servers.empty())
    return Status::InvalidArgument("kafka:// URL '" + url +
                                   "' names no bootstrap servers: write kafka://HOST:PORT/TOPIC or kafka://mock/TOPIC");
  if (servers == "mock") {
    o.mock = true;
  } else {
    for (const std::string& hp : SplitComma(servers)) {
      const size_t colon = hp.rfind(':');
      int port = 0;
      if (colon == std::string::npos || colon == 0 || !ParseNumber(hp.substr(colon + 1), &port) || port <= 0 ||
          port > 65535)
        return Status::InvalidArgument("kafka:// URL: bootstrap server '" + hp + "' is not HOST:PORT");
    }
    o.bootstrap_servers = servers;
  }
  for (const std::string& t : SplitComma(topics)) {
    if (!ValidTopic(t))
      return Status::InvalidArgument("kafka:// URL: '" + t +
                                     "' is not a topic name (1-249 characters of a-z A-Z 0-9 . _ -)");
    o.topics.push_back(t);
  }
  if (o.topics.empty())
    return Status::InvalidArgument("kafka:// URL '" + url + "' names no topic: write kafka://HOST:PORT/TOPIC");
  if (q != std::string::npos) {
    Status s = ForEachQueryParameter(url.substr(q + 1), "kafka://", [&](const std::string& name,
                                                                       const std::string& value) {
      return SetOption(o, name, value);
    });
    if (!s.ok()) return s;
  }
  return o;
}

}  // namespace idem
