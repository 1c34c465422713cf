// OpenBroker: picks the adapter from the URL scheme.
#include "idem/broker.h"
#include "idem/embedded_queue.h"
#include "source/broker_url.h"
#ifdef IDEM_WITH_RABBITMQ
#include "idem/rabbitmq.h"
#endif

namespace idem {

Result<BrokerUrl> ParseBrokerUrl(const std::string& url) {
#ifdef IDEM_WITH_RABBITMQ
  if (url.rfind("amqp://", 0) == 0 || url.rfind("amqps://", 0) == 0) return BrokerUrl{BrokerUrl::Kind::kRabbitMq, ""};
#endif
  std::string path = url;
  for (const char* prefix : {"queue://", "queue:"}) {
    if (url.rfind(prefix, 0) == 0) {
      path = url.substr(std::string(prefix).size());
      break;
    }
  }
  if (path.find("://") != std::string::npos)
    return Status::InvalidArgument("unsupported broker URL '" + url +
                                   "': use a queue file path"
#ifdef IDEM_WITH_RABBITMQ
                                   " or an amqp:// URL");
#else
                                   " (this build has no other broker adapters)");
#endif
  if (path.empty()) return Status::InvalidArgument("broker URL '" + url + "' names no queue file");
  return BrokerUrl{BrokerUrl::Kind::kEmbedded, std::move(path)};
}

Result<std::unique_ptr<Broker>> OpenBroker(const std::string& url, const BrokerOptions& options, Env* env) {
  auto parsed = ParseBrokerUrl(url);
  if (!parsed.ok()) return parsed.status();
#ifdef IDEM_WITH_RABBITMQ
  if (parsed->kind == BrokerUrl::Kind::kRabbitMq) return OpenRabbitMqBroker(url, options, env);
#endif
  EmbeddedQueueOptions eo;
  eo.topics = options.topics;
  eo.visibility_timeout_ms = options.visibility_timeout_ms;
  auto q = EmbeddedQueue::Open(parsed->path, eo, env);
  if (!q.ok()) return q.status();
  return std::unique_ptr<Broker>(std::move(*q));
}

}  // namespace idem
