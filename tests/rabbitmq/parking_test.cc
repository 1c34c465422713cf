// One valid message must never wedge a queue. A payment whose handler echoes a
// 200 kB field in its reason, one whose headers leave no room for idem's, and
// one whose body is at (or over) the message limit: each ends up dead-lettered
// — in Q.dead when RabbitMQ can take it, else in the store's idem_dead_letters —
// with its reason and its body byte-exact, the good payment behind it is
// applied, and the consumer goes idle (what `idem run --until-idle` waits for).
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "core/bounded_text.h"
#include "rabbitmq/rabbit_fixture.h"
#include "store/dead_letter_table.h"

namespace idem::testing {
namespace {

class RabbitParking : public RabbitTest {
 protected:
  // Runs until a poll comes back empty, as --until-idle does; false if it never does.
  static bool RunsUntilIdle(Pipeline& pipeline) {
    int batches = 0;
    Status s = pipeline.Run([&] { return ++batches > 200; }, /*until_idle=*/true);
    return s.ok() && batches <= 200;
  }

  void PublishMessages(std::vector<Message> messages) {
    auto broker = OpenQueue();
    ASSERT_NE(broker, nullptr);
    Status s = broker->publisher().PublishBatch(messages, 0);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  static Message Payment(const std::string& body) {
    Message m;
    m.topic = "pay";
    m.payload = body;
    return m;
  }

  // A JSON payment of exactly `size` bytes that fails for good.
  static std::string FailingBodyOfSize(const std::string& id, size_t size) {
    const std::string head = R"({"payment_id":")" + id + R"(","amount":5,"fail":"permanent","pad":")";
    const std::string tail = "\"}";
    return head + std::string(size - head.size() - tail.size(), 'x') + tail;
  }

  static const std::string kGood;
};

const std::string RabbitParking::kGood = R"({"payment_id":"P-good","amount":6})";

TEST_F(RabbitParking, AHugeValueEchoedInTheReasonIsParkedAndTheQueueMovesOn) {
  IDEM_REQUIRE_RABBITMQ();
  // PayHandler answers "no account <user>": the reason echoes all 200 kB.
  const std::string poison = R"({"payment_id":"P-poison","amount":5,"user":")" + std::string(200'000, 'u') + "\"}";
  PublishMessages({Payment(poison), Payment(kGood)});
  auto broker = OpenQueue();
  auto pipeline = NewPipeline(&broker->source());
  EXPECT_TRUE(RunUntil(*pipeline, [&] { return pipeline->counters().parked >= 1 && Effects("P-good") == 1; }))
      << "parked " << pipeline->counters().parked << ", good applied " << Effects("P-good");
  EXPECT_TRUE(RunsUntilIdle(*pipeline)) << "the consumer never went idle: the poison move is still pending";
  broker.reset();

  auto dead = Dead();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].message.payload, poison) << "the body is byte-exact";
  EXPECT_EQ(dead[0].reason.rfind("no account uuu", 0), 0u) << dead[0].reason.substr(0, 80);
  EXPECT_LE(dead[0].reason.size(), kMaxReasonBytes);
  EXPECT_NE(dead[0].reason.find("(200,011 bytes in all)"), std::string::npos);
  EXPECT_EQ(Effects("P-poison"), 0);
  EXPECT_EQ(Effects("P-good"), 1);
}

TEST_F(RabbitParking, HeadersThatLeaveNoRoomForIdemsAreTrimmedInTheDeadLetter) {
  IDEM_REQUIRE_RABBITMQ();
  // Four producer headers fill the 131,072-byte frame but for a little: the
  // original travels, the copy with its 2 KiB reason would not.
  Message m = Payment(R"({"payment_id":"P-headers","amount":5,"user":")" + std::string(3'000, 'u') + "\"}");
  for (int i = 0; i < 4; ++i) m.headers["x-big-" + std::to_string(i)] = std::string(32'300, 'h');
  m.headers["x-small"] = "kept";
  PublishMessages({m, Payment(kGood)});
  auto broker = OpenQueue();
  auto pipeline = NewPipeline(&broker->source());
  EXPECT_TRUE(RunUntil(*pipeline, [&] { return pipeline->counters().parked >= 1 && Effects("P-good") == 1; }));
  EXPECT_TRUE(RunsUntilIdle(*pipeline));
  broker.reset();

  auto dead = Dead();
  ASSERT_EQ(dead.size(), 1u);
  const DeadLetter& d = dead[0];
  EXPECT_EQ(d.message.payload, m.payload) << "the body is byte-exact";
  EXPECT_EQ(d.reason.rfind("no account uuu", 0), 0u);
  EXPECT_EQ(d.message.topic, "pay");
  EXPECT_EQ(d.attempts, 1);
  ASSERT_EQ(d.message.headers.count("x-idem-headers-trimmed"), 1u);
  const std::string& note = d.message.headers.at("x-idem-headers-trimmed");
  EXPECT_EQ(note.rfind("1 header(s) of 32,3", 0), 0u) << note;
  EXPECT_NE(note.find("\"x-big-3\""), std::string::npos) << note;
  EXPECT_EQ(d.message.headers.count("x-big-3"), 0u);
  EXPECT_EQ(d.message.headers.at("x-big-0"), std::string(32'300, 'h')) << "what fits is kept whole";
  EXPECT_EQ(d.message.headers.at("x-small"), "kept");
}

TEST_F(RabbitParking, ABodyOverTheMessageLimitIsKeptInTheStoreAndAcked) {
  IDEM_REQUIRE_RABBITMQ();
  constexpr size_t kLimit = 65'536;
  const std::string at_limit = FailingBodyOfSize("P-at", kLimit);
  const std::string over_limit = FailingBodyOfSize("P-over", kLimit + 1);
  PublishMessages({Payment(at_limit), Payment(over_limit), Payment(kGood)});
  auto broker = OpenQueue("max_message_bytes=" + std::to_string(kLimit));
  auto pipeline = NewPipeline(&broker->source());
  EXPECT_TRUE(RunUntil(*pipeline, [&] { return pipeline->counters().parked >= 2 && Effects("P-good") == 1; }))
      << "parked " << pipeline->counters().parked;
  EXPECT_TRUE(RunsUntilIdle(*pipeline)) << "the message over the limit was acked, not retried forever";
  broker.reset();

  // At the limit: RabbitMQ's dead-letter queue, byte-exact.
  auto dead = Dead();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].message.payload, at_limit);
  EXPECT_EQ(dead[0].reason, "bad payment");
  // Over it: the store's dead-letter table, byte-exact, with why it is there.
  auto kept = store_dead_letters::List(*store_, 10, 0);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  ASSERT_EQ(kept->size(), 1u);
  const DeadLetter& k = (*kept)[0];
  EXPECT_EQ(k.message.payload, over_limit);
  EXPECT_EQ(k.message.topic, "pay");
  EXPECT_EQ(k.attempts, 1);
  EXPECT_EQ(k.reason.rfind("bad payment [kept in the store: ", 0), 0u) << k.reason;
  EXPECT_NE(k.reason.find("65,537 bytes is over the 65,536-byte message limit"), std::string::npos) << k.reason;
  EXPECT_EQ(Stats().ready, 0) << "nothing is left in the main queue";
}

// The issue as a user met it: `idem run --until-idle` with declarative steps.
// A payment whose user_id is 200 kB is dead-lettered with the value cut in its
// reason, one over max_message_bytes is kept in the store, the good payment is
// applied, the run returns 0, and `idem dlq` lists and shows both.
TEST_F(RabbitParking, IdemRunUntilIdleReturnsAndDlqListsTheStoresDeadLettersBesideTheBrokers) {
  IDEM_REQUIRE_RABBITMQ();
  ASSERT_TRUE(store_->ExecScript("CREATE TABLE wallets (user_id TEXT PRIMARY KEY, balance INTEGER NOT NULL);"
                                 "INSERT INTO wallets VALUES ('u1', 100);")
                  .ok());
  const std::string long_user = R"({"payment_id":"P-user","user_id":")" + std::string(200'000, 'u') +
                                R"(","amount":5})";
  const std::string head = R"({"payment_id":"P-over","user_id":"nobody","amount":5,"pad":")";
  const std::string over = head + std::string(300'000 - head.size() - 2, 'x') + "\"}";
  PublishMessages({Payment(long_user), Payment(over), Payment(R"({"payment_id":"P-good","user_id":"u1","amount":5})")});
  const std::string url = Url("max_message_bytes=262144");
  const std::string config = dir_.File("run.toml");
  std::ofstream(config) << "[broker]\nurl = \"" << url << "\"\n[store]\nurl = \"sqlite:" << dir_.File("store.db")
                        << "\"\n[service]\nlog_decisions = false\n"
                        << "[[consumer]]\ngroup = \"payments\"\nworkers = 1\nmax_linger_ms = 200\n"
                        << "[[consumer.handler]]\ntopic = \"pay\"\nkey = [\"payment_id\"]\n"
                        << "[[consumer.handler.step]]\nchange_balance = \"wallets\"\nkey_column = \"user_id\"\n"
                        << "balance_column = \"balance\"\nkey = \"user_id\"\nsubtract = \"amount\"\n";
  CommandResult run = RunCommand({IDEM_CLI_PATH, "run", "--config", config, "--until-idle"});
  ASSERT_EQ(run.status, 0) << run.out.substr(0, 2000);
  EXPECT_EQ(QueryInt(*store_, "SELECT balance FROM wallets WHERE user_id = 'u1'"), 95) << "the good payment applied";

  CommandResult list = RunCommand({IDEM_CLI_PATH, "dlq", "list", "--config", config, "--json"});
  ASSERT_EQ(list.status, 0) << list.out;
  std::vector<nlohmann::json> lines;
  std::istringstream in(list.out);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 2u) << list.out;
  EXPECT_FALSE(lines[0].contains("kept_in")) << "the broker's first";
  EXPECT_NE(lines[0]["reason"].get<std::string>().find("user_id = \"uuu"), std::string::npos);
  EXPECT_NE(lines[0]["reason"].get<std::string>().find("(200,000 bytes)"), std::string::npos);
  EXPECT_EQ(lines[1]["kept_in"], "store");
  EXPECT_NE(lines[1]["reason"].get<std::string>().find("over the 262,144-byte message limit"), std::string::npos);

  CommandResult show =
      RunCommand({IDEM_CLI_PATH, "dlq", "show", "--config", config, "--stored", lines[1]["id"].get<std::string>(),
                  "--json"});
  ASSERT_EQ(show.status, 0) << show.out.substr(0, 500);
  EXPECT_EQ(nlohmann::json::parse(show.out)["payload"], over) << "byte-exact from the store";
  auto dead = Dead();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].message.payload, long_user) << "byte-exact in Q.dead";
}

}  // namespace
}  // namespace idem::testing
