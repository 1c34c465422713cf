// One valid message must never wedge a partition. With the consumer's producer
// held to message.max.bytes=300000: a payment whose handler echoes a 200 kB
// field in its reason, one whose producer headers leave no room for idem's, and
// one whose value alone is at the limit each end up dead-lettered — in the
// dead-letter topic when Kafka can take it, else in the store's
// idem_dead_letters — with its reason and byte-exact value, and the good
// payment behind it is applied and everything is consumed.
#include <map>
#include <string>

#include "core/bounded_text.h"
#include "kafka/kafka_fixture.h"
#include "store/dead_letter_table.h"

namespace idem::testing {
namespace {

constexpr size_t kLimit = 300'000;

class KafkaParking : public KafkaPipelineTest {
 protected:
  void SetUp() override {
    partitions_ = 1;  // the poison and the good payment share one partition
    KafkaPipelineTest::SetUp();
  }

  static std::string Limited() { return "&rdkafka.message.max.bytes=" + std::to_string(kLimit); }

  // Publishes with the default producer (message.max.bytes 1,000,000).
  void Publish(std::vector<Message> batch) {
    auto broker = OpenKafka();
    ASSERT_NE(broker, nullptr);
    Status s = broker->publisher().PublishBatch(batch, 0);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  static Message Payment(const std::string& key, const std::string& body) {
    Message m;
    m.topic = "pay";
    m.key = key;
    m.payload = body;
    return m;
  }

  static Message Good() { return Payment("P-good", R"({"payment_id":"P-good","amount":6})"); }

  // Consumes with the limited producer until the good payment is applied and
  // nothing is left to consume; then stops the worker.
  void ConsumeAll() {
    auto worker = StartWorker(Limited());
    ASSERT_NE(worker, nullptr);
    EXPECT_TRUE(WaitUntilConsumed(1)) << "the partition never drained: the poison is still being moved";
    worker.reset();
    EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM effects WHERE key = 'pay:P-good'"), 1);
  }

  std::vector<DeadLetter> DeadTopic() {
    auto broker = OpenKafka();
    auto dead = broker->dead_letters()->List(10);
    EXPECT_TRUE(dead.ok()) << dead.status().ToString();
    return dead.ok() ? *dead : std::vector<DeadLetter>{};
  }
};

TEST_F(KafkaParking, AHugeValueEchoedInTheReasonIsDeadLetteredAndThePartitionGoesOn) {
  const std::string poison = R"({"payment_id":"P-poison","amount":5,"user":")" + std::string(200'000, 'u') + "\"}";
  Publish({Payment("P-poison", poison), Good()});
  ConsumeAll();
  auto dead = DeadTopic();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].message.payload, poison) << "the value is byte-exact";
  EXPECT_EQ(dead[0].reason.rfind("no account uuu", 0), 0u);
  EXPECT_LE(dead[0].reason.size(), kMaxReasonBytes);
  EXPECT_NE(dead[0].reason.find("(200,011 bytes in all)"), std::string::npos);
}

TEST_F(KafkaParking, ProducerHeadersThatLeaveNoRoomAreTrimmedInTheDeadLetter) {
  Message m = Payment("P-headers", R"({"payment_id":"P-headers","amount":5,"fail":"permanent"})");
  for (int i = 0; i < 4; ++i) m.headers["x-big-" + std::to_string(i)] = std::string(100'000, 'h');
  m.headers["x-small"] = "kept";
  Publish({m, Good()});
  ConsumeAll();
  auto dead = DeadTopic();
  ASSERT_EQ(dead.size(), 1u);
  const DeadLetter& d = dead[0];
  EXPECT_EQ(d.message.payload, m.payload);
  EXPECT_EQ(d.reason, "bad payment");
  const auto& h = d.message.headers;
  ASSERT_EQ(h.count("idem-headers-trimmed"), 1u);
  EXPECT_EQ(h.at("idem-headers-trimmed").rfind("2 header(s) of 200,0", 0), 0u) << h.at("idem-headers-trimmed");
  EXPECT_EQ(h.at("x-big-0"), std::string(100'000, 'h')) << "what fits is kept whole";
  EXPECT_EQ(h.count("x-big-2") + h.count("x-big-3"), 0u);
  EXPECT_EQ(h.at("x-small"), "kept");
  EXPECT_EQ(h.at("kafka_dlt-original-topic"), topic_) << "idem's headers are always there";
}

TEST_F(KafkaParking, AValueAtTheProducersLimitIsKeptInTheStoreAndItsOffsetCommitted) {
  const std::string head = R"({"payment_id":"P-big","amount":5,"fail":"permanent","pad":")";
  const std::string big = head + std::string(kLimit - head.size() - 2, 'x') + "\"}";
  ASSERT_EQ(big.size(), kLimit);
  Publish({Payment("P-big", big), Good()});
  ConsumeAll();
  EXPECT_TRUE(DeadTopic().empty()) << "it could not go to the dead-letter topic";
  auto kept = store_dead_letters::List(*store_, 10, 0);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  ASSERT_EQ(kept->size(), 1u);
  const DeadLetter& k = (*kept)[0];
  EXPECT_EQ(k.message.payload, big) << "byte-exact";
  EXPECT_EQ(k.message.key, "P-big");
  EXPECT_EQ(k.attempts, 1);
  EXPECT_EQ(k.reason.rfind("bad payment [kept in the store: ", 0), 0u) << k.reason;
  EXPECT_NE(k.reason.find("message.max.bytes of 300,000"), std::string::npos) << k.reason;
}

}  // namespace
}  // namespace idem::testing
