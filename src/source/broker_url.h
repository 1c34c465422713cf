// What a broker URL names, read before anything is opened (OpenBroker's first
// step; the fuzz tests run it on arbitrary text).
#pragma once

#include <string>

#include "idem/status.h"

namespace idem {

struct BrokerUrl {
  enum class Kind { kEmbedded, kRabbitMq, kKafka };
  Kind kind = Kind::kEmbedded;
  std::string path;  // kEmbedded: the queue file, never empty
};

// amqp:// and amqps:// are kRabbitMq in a build with the adapter (ParseAmqpUrl
// reads the rest), kafka:// is kKafka (ParseKafkaUrl); queue:PATH, queue://PATH and a bare path (no ':' before
// its first '/') are kEmbedded. Any other scheme ("queu:q.db" included: never a file of that name) or a
// missing path is an InvalidArgument that says what to write.
Result<BrokerUrl> ParseBrokerUrl(const std::string& url);

}  // namespace idem
