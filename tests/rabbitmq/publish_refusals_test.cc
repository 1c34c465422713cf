// Against the real broker: a message AMQP cannot carry is refused before
// anything of its batch is sent, as a permanent error with a bounded reason;
// the connection stays usable and the good messages of the next batch go out.
#include "rabbitmq/rabbit_fixture.h"

namespace idem::testing {
namespace {

class RabbitPublishRefusals : public RabbitTest {};

struct Case {
  const char* name;
  void (*spoil)(Message&);
};

Message Good(const std::string& id) {
  Message m;
  m.topic = "pay";
  m.key = id;
  m.id = id;
  m.payload = "{\"payment_id\":\"" + id + "\",\"amount\":1}";
  return m;
}

TEST_F(RabbitPublishRefusals, EachRefusalIsPermanentAndSendsNothingOfItsBatch) {
  IDEM_REQUIRE_RABBITMQ();
  const std::vector<Case> cases = {
      {"a 256-byte topic", [](Message& m) { m.topic.assign(256, 't'); }},
      {"a 64 KiB topic", [](Message& m) { m.topic.assign(65536, 't'); }},
      {"a 1 MiB header", [](Message& m) { m.headers["big"] = std::string(1 << 20, 'v'); }},
      {"a 302-byte header name", [](Message& m) { m.headers[std::string(302, 'n')] = "v"; }},
      {"a header table over the frame",
       [](Message& m) {
         for (int i = 0; i < 3000; ++i) m.headers["h" + std::to_string(i)] = std::string(40, 'v');
       }},
  };
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  int good = 0;
  for (const Case& c : cases) {
    Message bad = Good("bad");
    c.spoil(bad);
    std::vector<Message> batch = {Good("before"), bad, Good("after")};
    Status s = broker->publisher().PublishBatch(batch);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << c.name << ": " << s.ToString();
    EXPECT_FALSE(s.IsRetryable()) << c.name;
    EXPECT_LT(s.message().size(), 600u) << c.name << ": the reason echoes the input";
    EXPECT_NE(s.message().find("message 2 of 3"), std::string::npos) << c.name << ": " << s.message();
    // The connection is fine: the next batch goes out, once.
    std::vector<Message> next = {Good("G" + std::to_string(++good))};
    Status ok = broker->publisher().PublishBatch(next);
    EXPECT_TRUE(ok.ok()) << c.name << ": " << ok.ToString();
  }
  broker.reset();
  EXPECT_EQ(Stats().ready, good) << "nothing of a refused batch is in the queue, every later message once";
}

TEST_F(RabbitPublishRefusals, AHeaderNameOf255BytesIsCarried) {
  IDEM_REQUIRE_RABBITMQ();
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  Message m = Good("P1");
  m.headers[std::string(255, 'n')] = "v";
  std::vector<Message> batch = {m};
  ASSERT_TRUE(broker->publisher().PublishBatch(batch).ok());
  auto got = broker->source().Poll(1, 10'000);
  ASSERT_TRUE(got.ok() && got->size() == 1) << got.status().ToString();
  EXPECT_EQ((*got)[0].headers.at(std::string(255, 'n')), "v");
}

}  // namespace
}  // namespace idem::testing

namespace idem::testing {
namespace {

TEST_F(RabbitPublishRefusals, IdemPublishWithA64KiBTopicStopsAtLineOneWithABoundedMessage) {
  IDEM_REQUIRE_RABBITMQ();
  const std::string topic(65536, 't');
  // No key fields: with them, a topic this long is refused as leaving no room for a key (exit 2).
  CommandResult pub = RunCommand({IDEM_CLI_PATH, "publish", "--queue", Url(), "--topic", topic},
                                 "{\"payment_id\":\"P1\",\"amount\":1}\n{\"payment_id\":\"P2\",\"amount\":1}\n");
  EXPECT_EQ(pub.status, 1) << pub.out.substr(0, 2000);
  EXPECT_LT(pub.out.size(), 2000u) << "the topic is quoted by a prefix only";
  EXPECT_NE(pub.out.find("line 1 cannot be published"), std::string::npos) << pub.out.substr(0, 2000);
  EXPECT_NE(pub.out.find("(65,536 bytes)"), std::string::npos) << pub.out.substr(0, 2000);
  EXPECT_NE(pub.out.find("0 message(s) published"), std::string::npos) << pub.out.substr(0, 2000);
  EXPECT_EQ(Stats().ready, 0);
}

}  // namespace
}  // namespace idem::testing
