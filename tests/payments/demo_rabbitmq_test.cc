// The payments demo on a real RabbitMQ: every cause of redelivery,
// driven in real time through the broker that scripts/servers/rabbitmq.sh
// starts (IDEM_TEST_AMQP_URL). With idem the service's invariants hold, read
// from the SQLite store and RabbitMQ's terminal queue; the incident's consumer
// on the same workload and broker does damage, so the faults really bit.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "invariants.h"
#include "demo/scenario_run.h"
#include "testing/test_util.h"

namespace idem::demo {
namespace {

std::string AmqpUrl() {
  const char* v = std::getenv("IDEM_TEST_AMQP_URL");
  return v ? v : "";
}

#define REQUIRE_RABBITMQ()                                                                          \
  do {                                                                                             \
    if (AmqpUrl().empty())                                                                         \
      GTEST_SKIP() << "IDEM_TEST_AMQP_URL is not set (scripts/test.sh starts the test RabbitMQ)"; \
  } while (0)

std::string Id(Cause c) {
  std::string id = InfoOf(c).id;
  return id == "001" ? "Incident001" : id;
}

class DemoOnRabbitMq : public ::testing::TestWithParam<Cause> {};

TEST_P(DemoOnRabbitMq, IdemHoldsTheInvariantsWhereTheNaiveConsumerDoesDamage) {
  REQUIRE_RABBITMQ();
  const Workload w = MakeWorkload(GetParam(), {5, 120});
  RunOptions o;
  o.broker_url = AmqpUrl();

  idem::testing::TempDir on_dir;
  o.dir = on_dir.path();
  o.schema = "test_" + Id(GetParam()) + "_idem";
  auto on = RunScenario(w, o);
  ASSERT_TRUE(on.ok()) << on.status().ToString();
  EXPECT_GT(on->deliveries, on->published) << "the cause made RabbitMQ deliver again";
  EXPECT_NE(on->broker_queue.find("queue=test_"), std::string::npos) << on->broker_queue;
  testing::Violations v = testing::CheckInvariants(on_dir.path(), w, on->broker_queue);
  EXPECT_TRUE(v.empty()) << v.Summary();
  EXPECT_TRUE(on->damage.Clean());
  EXPECT_GT(testing::RepeatPaymentsCharged(on_dir.path(), w), 0) << "a legitimate second payment was blocked";

  idem::testing::TempDir off_dir;
  o.dir = off_dir.path();
  o.schema = "test_" + Id(GetParam()) + "_off";
  o.protection = false;
  auto off = RunScenario(w, o);
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_GT(off->damage.double_charges + off->damage.duplicate_effects, 0)
      << "the naive consumer applied nothing twice: the scenario did not redeliver on RabbitMQ";
  EXPECT_EQ(off->damage.left_in_queue, 0) << "the naive run must drain too";
}

INSTANTIATE_TEST_SUITE_P(AllCauses, DemoOnRabbitMq,
                         ::testing::Values(Cause::kIncident, Cause::kProducerResend, Cause::kCrashBeforeAck,
                                           Cause::kVisibilityTimeout, Cause::kThrowAfterEffect, Cause::kRebalance,
                                           Cause::kOutOfOrder),
                         [](const ::testing::TestParamInfo<Cause>& info) { return Id(info.param); });

// The incident on RabbitMQ from the command line: the table's verdicts and the
// run's own queue, with the password kept out of the output.
TEST(DemoOnRabbitMqCli, ReplaysTheIncidentAndSaysWhereTheTerminalQueueIs) {
  REQUIRE_RABBITMQ();
  auto r = idem::testing::RunProcess({IDEM_CLI_PATH, "demo", "--json", "--messages", "100", "--seed", "2", "--only",
                                      "001,A2", "--broker", AmqpUrl()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["idem_clean"].get<bool>());
  EXPECT_TRUE(j["off_shows_damage"].get<bool>());
  EXPECT_NE(j["setup"].get<std::string>().find("RabbitMQ"), std::string::npos) << j["setup"];
  const auto& incident = j["scenarios"][0];
  EXPECT_EQ(incident["off"]["incident_charge_times_ms"].size(), 2u) << "charged twice without idem";
  EXPECT_EQ(incident["on"]["incident_charge_times_ms"].size(), 1u) << "charged once with idem";
  const std::string queue = incident["on"]["broker_queue"].get<std::string>();
  EXPECT_NE(queue.find("queue=idem_demo_001_idem."), std::string::npos) << queue;
  EXPECT_EQ(r.out.find(":guest@"), std::string::npos) << "the password must not be printed";
}

}  // namespace
}  // namespace idem::demo
