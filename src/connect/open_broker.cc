// OpenBroker and the broker schemes.
#include "connect/backend_openers.h"
#include "connect/known_schemes.h"
#include "idem/embedded_queue.h"
#include "source/broker_url.h"

#pragma weak idem_open_rabbitmq_broker
#pragma weak idem_open_kafka_broker

namespace idem {
namespace connect {
namespace {

// "queue:PATH", "queue://PATH" or a bare PATH: the embedded queue file.
Result<BrokerUrl> ParseQueueUrl(const std::string& url) {
  std::string path = url;
  for (const char* prefix : {"queue://", "queue:"}) {
    if (url.rfind(prefix, 0) == 0) {
      path = url.substr(std::string(prefix).size());
      break;
    }
  }
  if (path.find("://") != std::string::npos)
    return Status::InvalidArgument("broker URL '" + RedactedUrl(url) +
                                   "' holds another URL where the queue file should be: write queue:PATH");
  if (path.empty()) return Status::InvalidArgument("broker URL '" + RedactedUrl(url) + "' names no queue file");
  return BrokerUrl{BrokerUrl::Kind::kEmbedded, std::move(path)};
}

Result<std::unique_ptr<Broker>> OpenQueueUrl(const std::string& url, const BrokerOptions& options, Env* env) {
  if (Status s = RefuseOrderedRetries(options, "the embedded queue"); !s.ok()) return s;
  auto parsed = ParseQueueUrl(url);
  if (!parsed.ok()) return parsed.status();
  EmbeddedQueueOptions eo;
  eo.topics = options.topics;
  eo.visibility_timeout_ms = options.visibility_timeout_ms;
  eo.create_if_missing = options.create_if_missing;
  auto q = EmbeddedQueue::Open(parsed->path, eo, env);
  if (!q.ok()) return q.status();
  return std::unique_ptr<Broker>(std::move(*q));
}

}  // namespace

const SchemeTable<BrokerOpener>& BrokerSchemes() {
  static const SchemeTable<BrokerOpener> table{
      "broker",
      {
          {{{"queue:"}, "queue:PATH", "the embedded queue", "", true}, &OpenQueueUrl},
          {{{"amqp://", "amqps://"}, "amqp://USER:PASSWORD@HOST:PORT/VHOST?queue=NAME", "the RabbitMQ adapter",
            "IDEM_WITH_RABBITMQ"},
           IDEM_LINKED_OPENER(idem_open_rabbitmq_broker)},
          {{{"kafka://"}, "kafka://HOST:PORT/TOPIC?group=G (or kafka://mock/TOPIC)", "the Kafka adapter",
            "IDEM_WITH_KAFKA"},
           IDEM_LINKED_OPENER(idem_open_kafka_broker)},
      }};
  return table;
}

Status CheckBrokerUrl(const std::string& url) {
  if (Status s = CheckScheme(BrokerSchemes(), url); !s.ok()) return s;
  auto open = FindOpener(BrokerSchemes(), url);
  if (open.ok() && *open == &OpenQueueUrl) return ParseQueueUrl(url).status();
  return Status::OK();
}

}  // namespace connect

Result<BrokerUrl> ParseBrokerUrl(const std::string& url) {
  auto open = connect::FindOpener(connect::BrokerSchemes(), url);
  if (!open.ok()) return open.status();
  if (*open == &connect::OpenQueueUrl) return connect::ParseQueueUrl(url);
  if (url.rfind("kafka://", 0) == 0) return BrokerUrl{BrokerUrl::Kind::kKafka, ""};  // ParseKafkaUrl reads the rest
  return BrokerUrl{BrokerUrl::Kind::kRabbitMq, ""};  // ParseAmqpUrl reads the rest
}

Result<std::unique_ptr<Broker>> OpenBroker(const std::string& url, const BrokerOptions& options, Env* env) {
  auto open = connect::FindOpener(connect::BrokerSchemes(), url);
  if (!open.ok()) return open.status();
  return (*open)(url, options, env);
}

}  // namespace idem
