// Kafka under the source conformance suite, on the mock cluster: each test gets
// its own topic (one partition) and consumer group. The suite runs with the
// cooperative-sticky assignor (the default); eager rebalances are covered by
// rebalance_test.cc, which is where the assignor makes a difference.
#include "conformance/source_conformance.h"
#include "idem/env.h"
#include "kafka/mock_kafka.h"

namespace idem::testing {
namespace {

SourceFactory KafkaFactory(const std::string& assignor) {
  SourceFactory f;
  f.name = assignor == "range" ? "kafka_eager" : "kafka_cooperative";
  f.purges_one_dead_letter = false;  // a log: records leave with retention only
  f.fresh_queue = [assignor]() -> std::string {
    MockKafka& mock = MockKafka::Get();
    // The suite's two delays (300 ms, 5 min) are rungs of their own.
    return mock.Url(mock.FreshTopic(1), "&retry_delays_ms=300,300000&assignor=" + assignor);
  };
  f.open = [](const std::string& url) -> std::unique_ptr<Broker> {
    auto b = OpenBroker(url, BrokerOptions{}, Env::Default());
    if (!b.ok()) ADD_FAILURE() << b.status().ToString();
    return b.ok() ? std::move(*b) : nullptr;
  };
  return f;
}

INSTANTIATE_TEST_SUITE_P(Kafka, SourceConformance,
                         ::testing::Values(KafkaFactory("cooperative-sticky")),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace idem::testing
