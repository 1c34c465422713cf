// The shipped examples/payments/payments.toml: valid, and on the embedded
// default it consumes a published workload exactly once, serves /readyz and
// /metrics, and stops cleanly on SIGTERM.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include "idem/embedded_queue.h"
#include "payments/events.h"
#include "service/running_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

const std::string kConfig = std::string(IDEM_SOURCE_DIR) + "/examples/payments/payments.toml";

TEST(PaymentsTomlTest, ChecksClean) {
  auto r = testing::RunProcess({IDEM_CLI_PATH, "run", "--check", kConfig});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

#ifdef IDEM_WITH_KAFKA
// The Kafka variant, with ordered retries: valid without a cluster to reach.
TEST(PaymentsTomlTest, TheKafkaVariantChecksClean) {
  auto r = testing::RunProcess(
      {IDEM_CLI_PATH, "run", "--check", std::string(IDEM_SOURCE_DIR) + "/examples/payments/payments-kafka.toml"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}
#endif

TEST(PaymentsTomlTest, ConsumesAWorkloadOnceServesReadinessAndStopsOnSigterm) {
  testing::TempDir dir;
  {
    auto queue = EmbeddedQueue::Open(dir.File("payments-queue.db"), {}, Env::Default());
    ASSERT_TRUE(queue.ok());
    std::vector<Message> batch;
    auto add = [&](const char* topic, std::string payload, int copies) {
      for (int i = 0; i < copies; ++i) batch.push_back(Message{.topic = topic, .payload = payload});
    };
    add(payments::kTopicPaySuccess, payments::ToPayload(payments::PaySuccess{"PAY1", "O1", "U1", 3980}), 3);
    add(payments::kTopicShip, payments::ToPayload(payments::Ship{"O1", "SKU-MUG", 2}), 2);
    add(payments::kTopicTopUp, payments::ToPayload(payments::TopUp{"TU1", "U3", 5000}), 2);
    add(payments::kTopicPaySuccess, payments::ToPayload(payments::PaySuccess{"PAY2", "O2", "U2", 1290}), 2);
    ASSERT_TRUE((*queue)->PublishBatch(batch).ok());
  }
  testing::RunningIdem run({"run", "--config", kConfig, "--http-listen", "127.0.0.1:0"}, dir.path());
  const auto listening = run.WaitForEvent("http_listening");
  ASSERT_EQ(listening.value("event", ""), "http_listening") << run.Output();
  int decided = 0;
  run.WaitFor([&](const nlohmann::json& j) {
    if (j.value("event", "") == "decision") ++decided;
    return decided == 9;
  });
  ASSERT_EQ(decided, 9) << run.Output();
  httplib::Client http("127.0.0.1", listening.value("port", 0));
  auto ready = http.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200) << ready->body;
  auto metrics = http.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("idem_messages_total{group=\"payments\",handler=\"pay.success\",outcome=\"first\"} 2"),
            std::string::npos)
      << metrics->body;
  run.Signal(SIGTERM);
  ASSERT_EQ(run.Wait(), 0) << run.Output();

  auto store = OpenSqliteStore(dir.File("payments.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(testing::QueryInt(**store, "SELECT balance_cents FROM pay_accounts WHERE user_id = 'U1'"), 100000 - 3980);
  EXPECT_EQ(testing::QueryInt(**store, "SELECT balance_cents FROM pay_accounts WHERE user_id = 'U2'"), 50000 - 1290);
  EXPECT_EQ(testing::QueryInt(**store, "SELECT balance_cents FROM pay_accounts WHERE user_id = 'U3'"), 5000);
  EXPECT_EQ(testing::QueryInt(**store, "SELECT COUNT(*) FROM pay_account_flows"), 3);
  EXPECT_EQ(testing::QueryInt(**store, "SELECT quantity FROM pay_stock WHERE sku = 'SKU-MUG'"), 98);
  EXPECT_EQ(testing::QueryInt(**store, "SELECT COUNT(*) FROM pay_orders WHERE status = 'SHIPPED'"), 1);
}

}  // namespace
}  // namespace idem
