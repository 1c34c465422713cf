// Business keys longer than an AMQP message-id (255 bytes) publish and are
// applied once each, keyed by the full key: the message-id is a digest of the
// key, the key itself travels in the idem-key header.
#include <nlohmann/json.hpp>

#include "rabbitmq/rabbit_fixture.h"

namespace idem::testing {
namespace {

class RabbitLongKeys : public RabbitTest {
 protected:
  // PayHandler keyed on Message::key (the idem-key header), not on a payload field.
  static HandlerSpec KeyedByMessageKey() {
    HandlerSpec h = PayHandler();
    h.key.fields.clear();
    return h;
  }
  static std::string Line(const std::string& id) {
    return nlohmann::json{{"payment_id", id}, {"amount", 1}}.dump();
  }
  // Three keys that agree on their first 255 bytes: a cut id would merge them.
  // The longest is as long as a key can be: "pay:" + 508 bytes = 512.
  const std::vector<std::string> keys_ = {std::string(299, 'k') + "a", std::string(299, 'k') + "b",
                                          std::string(507, 'k') + "c"};
};

TEST_F(RabbitLongKeys, PublishedTwiceThroughThePublisherAndAppliedOncePerFullKey) {
  IDEM_REQUIRE_RABBITMQ();
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  for (int copy = 0; copy < 2; ++copy) {
    std::vector<Message> batch;
    for (const std::string& k : keys_) {
      Message m;
      m.topic = "pay";
      m.key = k;
      m.id = k;
      m.payload = Line(k);
      batch.push_back(m);
    }
    Status s = broker->publisher().PublishBatch(batch);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  RecordingSource seen(&broker->source());
  auto pipeline = std::make_unique<Pipeline>(&seen, store_.get(), Env::Default(), Options());
  ASSERT_TRUE(pipeline->Register(KeyedByMessageKey()).ok());
  ASSERT_TRUE(RunUntil(*pipeline, [&] { return pipeline->counters().received >= 6; }));
  for (const std::string& k : keys_) EXPECT_EQ(Effects(k), 1) << "key of " << k.size() << " bytes";
  EXPECT_EQ(CountEffects(*store_), 3);
  EXPECT_EQ(pipeline->counters().parked, 0);
  for (const Message& m : seen.seen) {
    EXPECT_EQ(m.id, m.key) << "the consumer sees the full id, not its digest";
    EXPECT_GT(m.key.size(), 255u);
  }
}

TEST_F(RabbitLongKeys, IdemPublishSendsThemAndTheConsumerAppliesEachOnce) {
  IDEM_REQUIRE_RABBITMQ();
  std::string input;
  for (const std::string& k : keys_) input += Line(k) + "\n";
  for (int run = 0; run < 2; ++run) {
    CommandResult pub = RunCommand({IDEM_CLI_PATH, "publish", "--queue", Url(), "--topic", "pay", "--key-fields",
                                    "payment_id"},
                                   input);
    ASSERT_EQ(pub.status, 0) << pub.out;
    EXPECT_NE(pub.out.find("published 3 message(s)"), std::string::npos) << pub.out;
  }
  EXPECT_EQ(Stats().ready, 6) << "each line once per run, none twice";
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  auto pipeline = NewPipeline(&broker->source());
  ASSERT_TRUE(RunUntil(*pipeline, [&] { return pipeline->counters().received >= 6; }));
  for (const std::string& k : keys_) EXPECT_EQ(Effects(k), 1) << "key of " << k.size() << " bytes";
  EXPECT_EQ(pipeline->counters().parked, 0);
}

}  // namespace
}  // namespace idem::testing
