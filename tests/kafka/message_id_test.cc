// A producer's Message::id survives Kafka: consumed with the same id, and kept
// by the retry topic and the dead-letter topic. (The demo's faults and its
// duplicate counts follow messages by their ids.)
#include <gtest/gtest.h>

#include "idem/broker.h"
#include "kafka/mock_kafka.h"
#include "testing/consumer_group.h"

namespace idem::testing {
namespace {

std::vector<Message> TakeOne(Broker& b) {
  std::vector<Message> got;
  WaitFor(
      [&] {
        auto r = b.source().Poll(1, 200);
        if (r.ok()) got = std::move(*r);
        return !got.empty();
      },
      30'000);
  return got;
}

TEST(KafkaMessageId, AProducersIdIsKeptThroughRetryAndDeadLetter) {
  MockKafka& mock = MockKafka::Get();
  auto broker = OpenBroker(mock.Url(mock.FreshTopic(1), "&retry_delays_ms=100"), BrokerOptions{}, Env::Default());
  ASSERT_TRUE(broker.ok()) << broker.status().ToString();
  std::vector<Message> batch(1);
  batch[0].id = "evt-42";
  batch[0].topic = "pay";
  batch[0].payload = "{}";
  ASSERT_TRUE((*broker)->publisher().PublishBatch(batch, 0).ok());
  EXPECT_EQ(batch[0].id, "evt-42") << "PublishBatch replaced the producer's id";

  auto first = TakeOne(**broker);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].id, "evt-42");
  ASSERT_TRUE((*broker)->source().Settle({Settlement{&first[0], Settlement::Kind::kRetry, 100, "later", 1}}).ok());
  auto retried = TakeOne(**broker);
  ASSERT_EQ(retried.size(), 1u);
  EXPECT_EQ(retried[0].id, "evt-42") << "the retry copy lost the id";
  ASSERT_TRUE((*broker)->source().Settle({Settlement{&retried[0], Settlement::Kind::kPark, 0, "gave up", 2}}).ok());
  auto dead = (*broker)->dead_letters()->List(10);
  ASSERT_TRUE(dead.ok()) << dead.status().ToString();
  ASSERT_EQ(dead->size(), 1u);
  EXPECT_EQ((*dead)[0].message.id, "evt-42");
}

}  // namespace
}  // namespace idem::testing
