// The mock Kafka cluster the Kafka tests run on: librdkafka's in-process mock,
// one per test process, with a fresh topic and group per test so tests never
// see each other's records or offsets.
#pragma once

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <string>

namespace idem::testing {

class MockKafka {
 public:
  // The process's cluster (3 brokers), started on first use.
  static MockKafka& Get();

  const std::string& bootstrap() const { return bootstrap_; }
  rd_kafka_mock_cluster_t* cluster() { return cluster_; }

  // A new topic named after the running test, with `partitions` partitions.
  std::string FreshTopic(int partitions);
  // kafka://BOOTSTRAP/TOPIC?group=…&session_timeout_ms=6000&… plus `extra`
  // ("&name=value…"). The short session timeout keeps the mock's rebalances
  // to seconds.
  std::string Url(const std::string& topic, const std::string& extra = "") const;

 private:
  MockKafka();
  rd_kafka_t* owner_ = nullptr;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
  std::string bootstrap_;
  int counter_ = 0;
};

}  // namespace idem::testing
