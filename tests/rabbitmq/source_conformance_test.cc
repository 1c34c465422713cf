// RabbitMQ under the source conformance suite, against the test broker that
// scripts/servers/rabbitmq.sh starts (IDEM_TEST_AMQP_URL). Each test gets its
// own queue, so the topology of one never meets another's.
#include <unistd.h>

#include <cstdlib>

#include "conformance/source_conformance.h"
#include "idem/env.h"

namespace idem::testing {
namespace {

void SkipWithoutRabbitMq() {
  GTEST_SKIP() << "IDEM_TEST_AMQP_URL is not set: start the test broker with scripts/servers/rabbitmq.sh "
                  "start and source build/test-servers.env (scripts/test.sh does both)";
}

SourceFactory RabbitFactory() {
  SourceFactory f;
  f.name = "rabbitmq";
  f.fresh_queue = []() -> std::string {
    const char* url = std::getenv("IDEM_TEST_AMQP_URL");
    if (!url || !*url) {
      SkipWithoutRabbitMq();
      return "";
    }
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    return std::string(url) + "?queue=sc." + info->name() + "." + std::to_string(getpid()) + "." +
           std::to_string(Env::Default()->Random64() % 1'000'000);
  };
  f.open = [](const std::string& url) -> std::unique_ptr<Broker> {
    auto b = OpenBroker(url, BrokerOptions{}, Env::Default());
    if (!b.ok()) ADD_FAILURE() << b.status().ToString();
    return b.ok() ? std::move(*b) : nullptr;
  };
  return f;
}

INSTANTIATE_TEST_SUITE_P(RabbitMq, SourceConformance, ::testing::Values(RabbitFactory()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace idem::testing
