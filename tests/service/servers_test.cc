// The payments handlers under `idem run` on RabbitMQ + PostgreSQL + Redis (the
// servers scripts/servers/*.sh start; skipped without them): a workload with
// resends is applied exactly once, Redis filters the copies that arrive after
// the commit, and SIGTERM stops the service with exit 0.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "idem/broker.h"
#include "payments/events.h"
#include "payments/schema.h"
#include "postgres/pg_test_support.h"
#include "service/running_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

std::string GetEnv(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

TEST(ServiceOnServersTest, PaymentsOnRabbitPostgresRedisApplyOnceAndStopCleanly) {
  const std::string amqp = GetEnv("IDEM_TEST_AMQP_URL"), redis = GetEnv("IDEM_TEST_REDIS_URL");
  if (amqp.empty() || redis.empty() || testing::PostgresTestUrl().empty())
    GTEST_SKIP() << "needs IDEM_TEST_AMQP_URL, IDEM_TEST_REDIS_URL and IDEM_TEST_POSTGRES_URL (scripts/test.sh "
                    "starts the servers)";
  const std::string run_id = std::to_string(getpid());
  const std::string pg = testing::FreshSchemaUrl();
  ASSERT_FALSE(pg.empty());
  const std::string queue_url = amqp + "?queue=idem_service_" + run_id;
  {
    auto store = testing::OpenPgStoreOrFail(pg);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(payments::CreateSchema(*store, payments::SchemaVariant::kGuarded).ok());
    ASSERT_TRUE(payments::SeedData(*store, {{"U1", 0}}, {}, {}).ok());
  }
  constexpr int kTopUps = 50;
  {
    auto broker = OpenBroker(queue_url, {}, Env::Default());
    ASSERT_TRUE(broker.ok()) << broker.status().ToString();
    std::vector<Message> batch;
    for (int i = 0; i < kTopUps; ++i) {
      Message m{.topic = payments::kTopicTopUp,
                .payload = payments::ToPayload(payments::TopUp{"T" + std::to_string(i), "U1", 10})};
      batch.push_back(m);
      if (i % 5 == 0) batch.push_back(m);
    }
    ASSERT_TRUE((*broker)->publisher().PublishBatch(batch).ok());
  }
  testing::TempDir dir;
  const std::string config = dir.File("run.toml");
  std::ofstream(config) << "[broker]\nurl = \"" << queue_url << "\"\n[store]\nurl = \"" << pg << "\"\n"
                        << "[fast_filter]\nurl = \"" << redis << "\"\nkey_prefix = \"idem-svc-" << run_id << ":\"\n"
                        << "[service]\nlog_decisions = false\n"
                        << "[[consumer]]\ngroup = \"payments\"\nworkers = 2\nbatch_size = 8\nhandlers = [\"payments\"]\n";
  testing::RunningIdem run({"run", "--config", config});
  int64_t decided = 0;
  run.WaitFor([&](const nlohmann::json& j) {
    if (j.value("event", "") == "batch") decided += j.value("first", 0) + j.value("duplicate", 0);
    return decided == kTopUps + kTopUps / 5;
  });
  ASSERT_EQ(decided, kTopUps + kTopUps / 5) << run.Output();
  run.Signal(SIGTERM);
  ASSERT_EQ(run.Wait(), 0) << run.Output();

  auto store = testing::OpenPgStoreOrFail(pg);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(testing::QueryInt(*store, "SELECT COUNT(*) FROM pay_account_flows"), kTopUps);
  EXPECT_EQ(testing::QueryInt(*store, "SELECT balance_cents FROM pay_accounts WHERE user_id = 'U1'"), kTopUps * 10);
}

}  // namespace
}  // namespace idem
