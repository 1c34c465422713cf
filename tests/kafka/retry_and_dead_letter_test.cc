// Through the pipeline: a poison message goes to the dead-letter topic with its
// reason while its partition goes on; in retry_topics mode a retryable failure
// walks the retry topics and then succeeds, once (the ordered mode, the
// default, retries in place: ordered_retry_test.cc).
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "idem/decision.h"
#include "idem/kafka.h"
#include "kafka/kafka_fixture.h"
#include "source/kafka/topic_reader.h"
#include "testing/consumer_group.h"

namespace idem::testing {
namespace {

class KafkaRetryAndDeadLetter : public KafkaPipelineTest {
 protected:
  void SetUp() override {
    partitions_ = 1;  // the poison and its neighbours share one partition
    KafkaPipelineTest::SetUp();
  }
};

TEST_F(KafkaRetryAndDeadLetter, APoisonMessageIsDeadLetteredWithItsReasonAndItsPartitionGoesOn) {
  PublishPayments(0, 5);
  PublishRaw("P-poison", "{not json");
  PublishPayments(5, 5);
  auto worker = StartWorker();
  ASSERT_NE(worker, nullptr);
  ASSERT_TRUE(WaitUntilConsumed(10)) << DistinctEffects() << " payments took effect";
  worker.reset();

  EXPECT_EQ(Effects(), 10);
  auto broker = OpenKafka();
  auto dead = broker->dead_letters()->List(10);
  ASSERT_TRUE(dead.ok()) << dead.status().ToString();
  ASSERT_EQ(dead->size(), 1u);
  EXPECT_EQ((*dead)[0].message.payload, "{not json");
  EXPECT_NE((*dead)[0].reason.find("JSON"), std::string::npos) << (*dead)[0].reason;
  const auto& h = (*dead)[0].message.headers;
  EXPECT_EQ(h.at("kafka_dlt-original-topic"), topic_);
  EXPECT_EQ(h.at("kafka_dlt-original-partition"), "0");
  EXPECT_EQ(h.at("kafka_dlt-original-offset"), "5");
  EXPECT_EQ(h.at("kafka_dlt-original-consumer-group"), "g." + topic_);
}

// Fails retryably until its third attempt.
HandlerSpec FailsTwiceThenPays(std::atomic<int>* runs) {
  HandlerSpec pay = PayHandler();
  HandlerSpec spec = pay;
  spec.fn = [pay, runs](HandlerContext& ctx) -> HandlerResult {
    ++*runs;
    if (ctx.attempt < 3) return HandlerResult::Retryable("bank timeout (attempt " + std::to_string(ctx.attempt) + ")");
    return pay.fn(ctx);
  };
  return spec;
}

TEST_F(KafkaRetryAndDeadLetter, ARetryableFailureWalksTheRetryTopicsThenSucceedsOnce) {
  PublishPayments(0, 1);
  std::atomic<int> runs{0};
  auto worker = StartWorker("&retry_mode=retry_topics", FailsTwiceThenPays(&runs));
  ASSERT_NE(worker, nullptr);
  ASSERT_TRUE(WaitUntilConsumed(1));
  const int64_t retried = worker->counters().retried.load();
  worker.reset();

  EXPECT_EQ(Effects(), 1);
  EXPECT_EQ(runs.load(), 3) << "first delivery, then one from each of two retry topics";
  EXPECT_EQ(retried, 2);
  // Each retry went through its own rung: 100 ms after the first failure, 200 ms after the second.
  auto options = ParseKafkaUrl(Url());
  ASSERT_TRUE(options.ok());
  auto reader = kafka::TopicReader::Open(*options, MockKafka::Get().bootstrap());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  for (const char* rung : {"100", "200", "300"}) {
    auto ranges = reader->Ranges(topic_ + "-retry-" + rung);
    ASSERT_TRUE(ranges.ok()) << ranges.status().ToString();
    int64_t records = 0;
    for (const auto& r : *ranges) records += r.high - r.low;
    EXPECT_EQ(records, std::string(rung) == "300" ? 0 : 1) << "retry topic " << rung;
  }
}

void SetBrokers(bool up) {
  for (int32_t id = 1; id <= 3; ++id) {
    if (up) rd_kafka_mock_broker_set_up(MockKafka::Get().cluster(), id);
    else rd_kafka_mock_broker_set_down(MockKafka::Get().cluster(), id);
  }
}

TEST_F(KafkaRetryAndDeadLetter, AMoveThatIsNotConfirmedIsTriedAgainWithoutARebalance) {
  PublishPayments(0, 1);
  std::atomic<int> runs{0};
  HandlerSpec pay = PayHandler();
  HandlerSpec spec = pay;
  // The first failure's move to the retry topic cannot be confirmed: every
  // broker is down until the handler runs again.
  spec.fn = [pay, &runs](HandlerContext& ctx) -> HandlerResult {
    const int run = ++runs;
    SetBrokers(run != 1);
    if (run <= 2) return HandlerResult::Retryable("bank timeout (run " + std::to_string(run) + ")");
    return pay.fn(ctx);
  };
  auto worker = StartWorker("&request_timeout_ms=2000&retry_mode=retry_topics", spec);
  ASSERT_NE(worker, nullptr);
  const bool again = WaitFor([&] { return runs.load() >= 2; }, 60'000);
  SetBrokers(true);
  ASSERT_TRUE(again) << "the payment whose move failed was never handed out again";
  ASSERT_TRUE(WaitUntilConsumed(1)) << runs.load() << " handler run(s)";
  worker.reset();
  EXPECT_EQ(Effects(), 1);
  auto broker = OpenKafka();
  auto dead = broker->dead_letters()->List(10);
  ASSERT_TRUE(dead.ok()) << dead.status().ToString();
  EXPECT_TRUE(dead->empty());
}

}  // namespace
}  // namespace idem::testing
