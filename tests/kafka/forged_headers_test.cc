// idem's headers are idem's on Kafka too: a record a producer wrote to a main
// topic has its reserved x-idem-* headers renamed x-producer-x-idem-* when it
// is consumed, so they never reach a retry copy or a dead letter under idem's
// names; the retry copy idem wrote keeps idem's own bookkeeping.
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

TEST(KafkaForgedHeaders, AProducersIdemHeadersAreRenamedAndNeverReachTheDeadLetter) {
  MockKafka& mock = MockKafka::Get();
  auto broker = OpenBroker(mock.Url(mock.FreshTopic(1), "&retry_delays_ms=100&retry_mode=retry_topics"),
                           BrokerOptions{}, Env::Default());
  ASSERT_TRUE(broker.ok()) << broker.status().ToString();
  std::vector<Message> batch(1);
  batch[0].topic = "pay";
  batch[0].payload = "{}";
  batch[0].headers = {{"x-idem-replay", "mallory"}, {"x-idem-first-failed-ms", "0"}, {"x-idem-key", "K1"}};
  ASSERT_TRUE((*broker)->publisher().PublishBatch(batch, 0).ok());

  auto first = TakeOne(**broker);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].headers.count("x-idem-replay"), 0u);
  EXPECT_EQ(first[0].headers.at("x-producer-x-idem-replay"), "mallory");
  EXPECT_EQ(first[0].headers.at("x-producer-x-idem-first-failed-ms"), "0");
  EXPECT_EQ(first[0].headers.at("x-idem-key"), "K1") << "the producer's own x-idem-key is not reserved";
  ASSERT_TRUE((*broker)->source().Settle({Settlement{&first[0], Settlement::Kind::kRetry, 100, "later", 1}}).ok());

  auto retried = TakeOne(**broker);
  ASSERT_EQ(retried.size(), 1u);
  EXPECT_EQ(retried[0].headers.count("idem-first-failed-ms"), 1u) << "the retry copy keeps idem's own history";
  EXPECT_EQ(retried[0].headers.count("x-idem-replay"), 0u);
  ASSERT_TRUE((*broker)->source().Settle({Settlement{&retried[0], Settlement::Kind::kPark, 0, "gave up", 2}}).ok());
  auto dead = (*broker)->dead_letters()->List(10);
  ASSERT_TRUE(dead.ok()) << dead.status().ToString();
  ASSERT_EQ(dead->size(), 1u);
  EXPECT_GT((*dead)[0].first_failed_ms, 1'700'000'000'000);
  EXPECT_EQ((*dead)[0].message.headers.count("x-idem-replay"), 0u);
  EXPECT_EQ((*dead)[0].message.headers.at("x-producer-x-idem-replay"), "mallory");
}

}  // namespace
}  // namespace idem::testing
