// OpenBroker and the broker schemes.
#include "connect/known_schemes.h"
#include "idem/embedded_queue.h"

#ifdef IDEM_WITH_RABBITMQ
#include "idem/rabbitmq.h"
#endif

namespace idem {
namespace connect {
namespace {

// "queue:PATH", "queue://PATH" or a bare PATH: the embedded queue file.
Result<std::unique_ptr<Broker>> OpenQueueUrl(const std::string& url, const BrokerOptions& options, Env* env) {
  std::string path = url;
  for (const char* prefix : {"queue://", "queue:"}) {
    if (url.rfind(prefix, 0) == 0) {
      path = url.substr(std::string(prefix).size());
      break;
    }
  }
  if (path.empty()) return Status::InvalidArgument("broker URL '" + url + "' names no queue file");
  EmbeddedQueueOptions eo;
  eo.topics = options.topics;
  eo.visibility_timeout_ms = options.visibility_timeout_ms;
  auto q = EmbeddedQueue::Open(path, eo, env);
  if (!q.ok()) return q.status();
  return std::unique_ptr<Broker>(std::move(*q));
}

#ifdef IDEM_WITH_RABBITMQ
Result<std::unique_ptr<Broker>> OpenRabbitMqUrl(const std::string& url, const BrokerOptions& options, Env* env) {
  return OpenRabbitMqBroker(url, options, env);
}
#else
constexpr BrokerOpener OpenRabbitMqUrl = nullptr;
#endif

}  // namespace

const SchemeTable<BrokerOpener>& BrokerSchemes() {
  static const SchemeTable<BrokerOpener> table{
      "broker",
      {
          {{{"queue:"}, "queue:PATH", "the embedded queue", "", true}, &OpenQueueUrl},
          {{{"amqp://", "amqps://"}, "amqp://USER:PASSWORD@HOST:PORT/VHOST?queue=NAME", "the RabbitMQ adapter",
            "IDEM_WITH_RABBITMQ"},
           OpenRabbitMqUrl},
      }};
  return table;
}

}  // namespace connect

Result<std::unique_ptr<Broker>> OpenBroker(const std::string& url, const BrokerOptions& options, Env* env) {
  auto open = connect::FindOpener(connect::BrokerSchemes(), url);
  if (!open.ok()) return open.status();
  return (*open)(url, options, env);
}

}  // namespace idem
