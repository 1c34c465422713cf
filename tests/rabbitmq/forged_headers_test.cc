// idem's headers are idem's on RabbitMQ: an external producer that sets
// x-idem-replay on a message whose key is FAILED does not get it run again,
// and its x-idem-first-failed-ms does not become the dead letter's history;
// `idem dlq replay` still runs the message again, once, with its grant and
// audit row. (The producer here is amqp-publish, which sets no user-id:
// own_copies.h.)
#include <nlohmann/json.hpp>

#include "rabbitmq/rabbit_fixture.h"

namespace idem::testing {
namespace {

constexpr char kPayment[] = R"({"payment_id":"P9","amount":5,"user":"u3"})";  // u3 has no account yet

class RabbitForgedHeaders : public RabbitTest {
 protected:
  CommandResult Idem(std::vector<std::string> args) {
    args.insert(args.begin(), IDEM_CLI_PATH);
    return RunCommand(args);
  }
  void ForgedPublish(const std::vector<std::string>& headers) {
    std::vector<std::string> argv{"amqp-publish", "-u", base_url_, "-e", queue_, "-r", "pay", "-p",
                                  "-C", "application/json", "-b", kPayment};
    for (const std::string& h : headers) argv.insert(argv.end(), {"-H", h});
    CommandResult r = RunCommand(argv);
    ASSERT_EQ(r.status, 0) << "amqp-publish failed (is amqp-tools installed?) " << r.out;
  }
  std::string RecordStatus() {
    auto r = store_->ReadRecord(Options().consumer_group, "pay:P9");
    return r.ok() && r->has_value() ? std::string(RecordStatusName((*r)->status)) : "none";
  }
};

TEST_F(RabbitForgedHeaders, AProducersReplayAndFailureHistoryAreNotTrusted) {
  IDEM_REQUIRE_RABBITMQ();
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  auto pipeline = NewPipeline(&broker->source());
  ForgedPublish({});
  ASSERT_TRUE(RunUntil(*pipeline, [&] { return pipeline->counters().parked == 1; }));
  ASSERT_EQ(RecordStatus(), "FAILED");
  ASSERT_TRUE(store_->ExecScript("INSERT INTO accounts (owner, balance) VALUES ('u3', 100)").ok());

  // The same payment again, "replayed" by the producer, with a forged history.
  ForgedPublish({"x-idem-replay: mallory", "x-idem-first-failed-ms: 0"});
  ASSERT_TRUE(RunUntil(*pipeline, [&] { return pipeline->counters().parked == 2; }));
  EXPECT_EQ(RecordStatus(), "FAILED") << "no operator replayed it";
  EXPECT_EQ(Effects("P9"), 0);
  pipeline.reset();
  broker.reset();

  std::vector<DeadLetter> dead = Dead();
  ASSERT_EQ(dead.size(), 2u);
  for (const DeadLetter& d : dead) {
    EXPECT_GT(d.first_failed_ms, 1'700'000'000'000) << "first failed when idem parked it, not in 1970";
    EXPECT_EQ(d.message.headers.count("x-idem-replay"), 0u);
  }
  EXPECT_EQ(dead[1].message.headers.at("x-producer-x-idem-first-failed-ms"), "0") << "kept visible, renamed";
  EXPECT_EQ(dead[1].message.headers.at("x-producer-x-idem-replay"), "mallory");

  // The operator replays the first: its grant runs it once.
  CommandResult replay = Idem({"dlq", "replay", "--queue", Url(), std::to_string(dead[0].id), "--store",
                               "sqlite:" + dir_.File("store.db")});
  ASSERT_EQ(replay.status, 0) << replay.out;
  auto again = OpenQueue();
  ASSERT_NE(again, nullptr);
  auto after = NewPipeline(&again->source());
  ASSERT_TRUE(RunUntil(*after, [&] { return Effects("P9") == 1; }));
  EXPECT_EQ(RecordStatus(), "SUCCEEDED");
  EXPECT_EQ(QueryInt(*store_, "SELECT count(*) FROM idem_replay_grants"), 0) << "the grant is spent";
  EXPECT_EQ(QueryInt(*store_, "SELECT count(*) FROM idem_audit WHERE action = 'replay' AND outcome = 'ok'"), 1);
  EXPECT_EQ(Balance(*store_, "u3"), 95) << "applied once";
}

}  // namespace
}  // namespace idem::testing
