// The idem command line against RabbitMQ: publish, queue stats and the dlq
// console work on amqp:// URLs through OpenBroker, with no RabbitMQ-specific code
// in the CLI.
#include <nlohmann/json.hpp>

#include "rabbitmq/rabbit_fixture.h"
#include "testing/base64.h"
#include "testing/silent_listener.h"

namespace idem::testing {
namespace {

class RabbitCli : public RabbitTest {
 protected:
  CommandResult Idem(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), IDEM_CLI_PATH);
    return RunCommand(args, input);
  }
};

TEST_F(RabbitCli, PublishStatsAndTheDeadLetterConsole) {
  IDEM_REQUIRE_RABBITMQ();
  const std::string url = Url();
  CommandResult pub = Idem({"publish", "--queue", url, "--topic", "pay", "--key-fields", "payment_id"},
                           "{\"payment_id\":\"P1\",\"amount\":10}\n{\"amount\":3}\n");
  EXPECT_EQ(pub.status, 1) << "a rejected line makes publish exit 1";
  EXPECT_NE(pub.out.find("published 1 message(s)"), std::string::npos) << pub.out;

  CommandResult stats = Idem({"queue", "stats", "--queue", url, "--json"});
  ASSERT_EQ(stats.status, 0) << stats.out;
  auto st = nlohmann::json::parse(stats.out);
  EXPECT_EQ(st["ready"], 1);
  EXPECT_EQ(st["dead"], 1);

  CommandResult list = Idem({"dlq", "list", "--queue", url, "--json"});
  ASSERT_EQ(list.status, 0) << list.out;
  auto dead = nlohmann::json::parse(list.out.substr(0, list.out.find('\n')));
  EXPECT_NE(dead["reason"].get<std::string>().find("payment_id"), std::string::npos) << dead.dump();
  // RabbitMQ dead-letter ids are time-ordered int64s above 2^53, where a JSON
  // number would be rounded by readers that use doubles: they are strings.
  ASSERT_TRUE(dead["id"].is_string()) << dead.dump();
  const std::string id = dead["id"];
  EXPECT_GT(std::stoll(id), int64_t{1} << 53);
  CommandResult table = Idem({"dlq", "list", "--queue", url});
  EXPECT_NE(table.out.find(id), std::string::npos) << "the same id as the table shows: " << table.out;

  CommandResult show = Idem({"dlq", "show", "--queue", url, id});
  ASSERT_EQ(show.status, 0) << show.out;
  EXPECT_NE(show.out.find("{\"amount\":3}"), std::string::npos) << show.out;

  CommandResult replay = Idem({"dlq", "replay", "--queue", url, id, "--store", "sqlite:" + dir_.File("audit.db")});
  ASSERT_EQ(replay.status, 0) << replay.out;
  EXPECT_NE(replay.out.find("replayed 1"), std::string::npos) << replay.out;

  // The good payment is applied; the replayed line still has no key and is parked again.
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  auto pipeline = NewPipeline(&broker->source());
  ASSERT_TRUE(RunUntil(*pipeline, [&] { return pipeline->counters().received >= 2; }));
  EXPECT_EQ(Effects("P1"), 1);
  EXPECT_EQ(pipeline->counters().parked, 1);

  CommandResult purge = Idem({"dlq", "purge", "--queue", url, "--all", "--yes", "--store", "sqlite:" + dir_.File("audit.db")});
  ASSERT_EQ(purge.status, 0) << purge.out;
  EXPECT_NE(purge.out.find("purged 1"), std::string::npos) << purge.out;
  CommandResult empty = Idem({"dlq", "list", "--queue", url});
  EXPECT_NE(empty.out.find("the terminal queue is empty"), std::string::npos) << empty.out;
}

TEST_F(RabbitCli, ReadOnlyCommandsOnAMistypedQueueFailAndDeclareNothing) {
  IDEM_REQUIRE_RABBITMQ();
  const std::string typo = queue_ + "-typo";
  const std::string url = base_url_ + "?queue=" + typo;
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"queue", "stats"}, {"dlq", "list"}, {"dlq", "show", "1"}, {"dlq", "replay", "--all"},
           {"dlq", "purge", "1"}}) {
    args.insert(args.begin() + 2, {"--queue", url});  // after the (sub-)command words
    CommandResult r = Idem(args);
    EXPECT_EQ(r.status, 1) << args[0] << " " << args[1] << ": " << r.out;
    EXPECT_NE(r.out.find("check --broker; `idem publish` creates it"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("has no queue '" + typo + "'"), std::string::npos) << r.out;
  }
  for (const std::string& q : {typo, typo + ".dead", typo + ".audit"})
    EXPECT_FALSE(RawQueueExists(base_url_, q)) << "queue '" << q << "' was created by a read-only command";
}

TEST_F(RabbitCli, ReplayOfAnIdThatDoesNotExistMovesNothing) {
  IDEM_REQUIRE_RABBITMQ();
  const std::string url = Url();
  const std::vector<std::string> publish{"publish", "--queue", url, "--topic", "pay", "--key-fields", "payment_id"};
  ASSERT_EQ(Idem(publish, "{\"amount\":3}\n").status, 1);
  CommandResult list = Idem({"dlq", "list", "--queue", url, "--json"});
  ASSERT_EQ(list.status, 0) << list.out;
  const std::string real = nlohmann::json::parse(list.out.substr(0, list.out.find('\n')))["id"];
  CommandResult r = Idem({"dlq", "replay", "--queue", url, real, "12345", "--store", "sqlite:" + dir_.File("audit.db")});
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("no dead letter with id 12345: nothing was replayed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("replayed 0"), std::string::npos) << r.out;
  QueueStats st = Stats();
  EXPECT_EQ(st.dead, 1) << "the real dead letter stays where it was";
  EXPECT_EQ(st.ready, 0);
}

TEST_F(RabbitCli, ShowJsonGivesThePayloadBackByteExact) {
  IDEM_REQUIRE_RABBITMQ();
  const std::string url = Url();
  const std::string invalid_utf8 = "{\"payment_id\":\"P3\",\"note\":\"\xff\xfe\x80\"}";
  const std::vector<std::string> publish{"publish", "--queue", url, "--topic", "pay", "--key-fields", "payment_id"};
  ASSERT_EQ(Idem(publish, invalid_utf8 + "\n").status, 1);
  CommandResult list = Idem({"dlq", "list", "--queue", url, "--json"});
  ASSERT_EQ(list.status, 0) << list.out;
  const std::string id = nlohmann::json::parse(list.out.substr(0, list.out.find('\n')))["id"];
  CommandResult show = Idem({"dlq", "show", "--queue", url, id, "--json"});
  ASSERT_EQ(show.status, 0) << show.out;
  auto j = nlohmann::json::parse(show.out);
  EXPECT_EQ(j["payload_encoding"], "base64") << show.out;
  EXPECT_EQ(Unbase64(j.value("payload_base64", "")), invalid_utf8) << show.out;
}

// No server needed: something that accepts the TCP connection and never speaks.
TEST_F(RabbitCli, ABrokerThatNeverAnswersIsReportedAfterTheConnectTimeout) {
  SilentListener hung;
  ASSERT_NE(hung.port(), 0);
  const std::string url =
      "amqp://guest:guest@127.0.0.1:" + std::to_string(hung.port()) + "/%2f?queue=x&connect_timeout_ms=300";
  CommandResult r = Idem({"queue", "stats", "--queue", url});
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("did not answer the AMQP handshake within connect_timeout_ms=300"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("127.0.0.1:" + std::to_string(hung.port())), std::string::npos) << r.out;
}

TEST_F(RabbitCli, AnUnreachableBrokerIsReportedWithWhatToDo) {
  IDEM_REQUIRE_RABBITMQ();
  // Port 1 on localhost refuses connections.
  CommandResult r = Idem({"queue", "stats", "--queue", "amqp://guest:guest@127.0.0.1:1/%2f?queue=x"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("is the broker running?"), std::string::npos) << r.out;
  CommandResult bad = Idem({"queue", "stats", "--queue", Url("prefetchh=3")});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.out.find("unknown parameter 'prefetchh'"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace idem::testing
