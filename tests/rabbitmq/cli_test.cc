// The idem command line against RabbitMQ: publish, queue stats and the dlq
// console work on amqp:// URLs through OpenBroker, with no RabbitMQ-specific code
// in the CLI.
#include <nlohmann/json.hpp>

#include "rabbitmq/rabbit_fixture.h"

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
  const std::string id = std::to_string(dead["id"].get<int64_t>());

  CommandResult show = Idem({"dlq", "show", "--queue", url, id});
  ASSERT_EQ(show.status, 0) << show.out;
  EXPECT_NE(show.out.find("{\"amount\":3}"), std::string::npos) << show.out;

  CommandResult replay = Idem({"dlq", "replay", "--queue", url, id, "--actor", "cli-test"});
  ASSERT_EQ(replay.status, 0) << replay.out;
  EXPECT_NE(replay.out.find("replayed 1"), std::string::npos) << replay.out;

  // The good payment is applied; the replayed line still has no key and is parked again.
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  auto pipeline = NewPipeline(broker.get());
  ASSERT_TRUE(RunUntil(*pipeline, [&] { return pipeline->counters().received >= 2; }));
  EXPECT_EQ(Effects("P1"), 1);
  EXPECT_EQ(pipeline->counters().parked, 1);

  CommandResult purge = Idem({"dlq", "purge", "--queue", url, "--all", "--yes", "--actor", "cli-test"});
  ASSERT_EQ(purge.status, 0) << purge.out;
  EXPECT_NE(purge.out.find("purged 1"), std::string::npos) << purge.out;
  CommandResult empty = Idem({"dlq", "list", "--queue", url});
  EXPECT_NE(empty.out.find("the terminal queue is empty"), std::string::npos) << empty.out;
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
