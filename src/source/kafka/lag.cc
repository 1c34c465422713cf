// KafkaLag: the per-partition figures behind `idem queue stats` on Kafka.
#include "idem/kafka.h"
#include "source/kafka/client_config.h"
#include "source/kafka/record_codec.h"
#include "source/kafka/topic_reader.h"

namespace idem {

Result<std::vector<KafkaPartitionLag>> KafkaLag(const std::string& url) {
  auto options = ParseKafkaUrl(url);
  if (!options.ok()) return options.status();
  auto bootstrap = kafka::BootstrapServers(*options);
  if (!bootstrap.ok()) return bootstrap.status();
  auto reader = kafka::TopicReader::Open(*options, *bootstrap);
  if (!reader.ok()) return reader.status();
  std::vector<std::string> topics = options->topics;
  for (const std::string& t : options->topics)
    for (int64_t rung : options->retry_delays_ms) topics.push_back(kafka::RetryTopic(t, rung));
  for (const std::string& t : options->topics) topics.push_back(kafka::DeadLetterTopic(t));
  std::vector<KafkaPartitionLag> out;
  for (const std::string& t : topics) {
    auto ranges = reader->Ranges(t);
    if (!ranges.ok()) return ranges.status();
    for (const kafka::PartitionRange& r : *ranges) {
      KafkaPartitionLag l;
      l.topic = t;
      l.partition = r.key.partition;
      l.low = r.low;
      l.high = r.high;
      l.committed = r.committed;
      l.lag = r.high - std::max(r.low, r.committed);
      out.push_back(l);
    }
  }
  return out;
}

}  // namespace idem
