// The shipped payments.toml with the outbox: pay.success charges and emits a
// points grant and a notice; the relay in the same `idem run` publishes them
// and the points and notices groups apply each once, even though every
// payment was published several times. Checked with SQL after SIGTERM.
#include <gtest/gtest.h>
#include <signal.h>

#include <map>

#include "idem/embedded_queue.h"
#include "payments/events.h"
#include "service/running_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using testing::QueryInt;

const std::string kConfig = std::string(IDEM_SOURCE_DIR) + "/examples/payments/payments.toml";

TEST(OutboxPaymentsTest, EachPaymentYieldsOneGrantAndOneNoticeThroughTheOutbox) {
  testing::TempDir dir;
  {
    auto queue = EmbeddedQueue::Open(dir.File("payments-queue.db"), {}, Env::Default());
    ASSERT_TRUE(queue.ok());
    std::vector<Message> batch;
    // O1 and O2 of the file's setup_sql, each payment published three times.
    for (int copy = 0; copy < 3; ++copy) {
      batch.push_back({.topic = payments::kTopicPaySuccess,
                       .payload = payments::ToPayload(payments::PaySuccess{"PAY1", "O1", "U1", 3980})});
      batch.push_back({.topic = payments::kTopicPaySuccess,
                       .payload = payments::ToPayload(payments::PaySuccess{"PAY2", "O2", "U2", 1290})});
    }
    ASSERT_TRUE((*queue)->PublishBatch(batch).ok());
  }
  testing::RunningIdem run({"run", "--config", kConfig, "--http-listen", "127.0.0.1:0"}, dir.path());
  // Every first delivery of the three groups: 2 payments, 2 grants, 2 notices.
  std::map<std::string, int> first;
  const auto last = run.WaitFor([&](const nlohmann::json& j) {
    if (j.value("event", "") == "decision" && j.value("decision", "") == "FIRST") ++first[j.value("group", "")];
    return first["payments"] == 2 && first["points"] == 2 && first["notices"] == 2;
  });
  ASSERT_NE(last.value("event", ""), "eof") << run.Output();
  run.Signal(SIGTERM);
  ASSERT_EQ(run.Wait(), 0) << run.Output();

  auto store = OpenSqliteStore(dir.File("payments.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM pay_account_flows"), 2);
  EXPECT_EQ(QueryInt(**store, "SELECT balance_cents FROM pay_accounts WHERE user_id = 'U1'"), 100000 - 3980);
  EXPECT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM pay_points WHERE scene = 'PAY'"), 2);
  EXPECT_EQ(QueryInt(**store, "SELECT points FROM pay_points WHERE payment_id = 'PAY1'"), 39);
  EXPECT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM pay_notifications WHERE kind = 'PAY_SUCCESS'"), 2);
  EXPECT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM idem_outbox WHERE state = 'SENT'"), 4)
      << "one grant and one notice per payment, not per copy";
  EXPECT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM idem_records WHERE consumer_group = 'points'"), 2);
  EXPECT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM idem_records WHERE consumer_group = 'notices'"), 2);
}

}  // namespace
}  // namespace idem
