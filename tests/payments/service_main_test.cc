// payments_service, the service as a program: on the embedded default it
// consumes what is in the queue, charges a payment sent twice once, and says so.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "idem/embedded_queue.h"
#include "idem/store.h"
#include "payments/events.h"
#include "payments/schema.h"
#include "testing/test_util.h"

namespace idem::payments {
namespace {

TEST(ServiceMain, ChargesAPaymentSentTwiceOnceAndExitsWhenIdle) {
  testing::TempDir dir;
  const std::string queue_path = dir.File("queue.db"), store_path = dir.File("store.db");
  {
    // The deployment's data: an account and an order waiting for its payment.
    auto store = OpenStore(store_path, Env::Default());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ASSERT_TRUE(CreateSchema(**store, SchemaVariant::kGuarded).ok());
    ASSERT_TRUE(SeedData(**store, {{"U1", 100'000}}, {{"SKU-A", 5'000, 10}}, {{"O1", "U1", "SKU-A", 1, 5'000}}).ok());
    auto queue = EmbeddedQueue::Open(queue_path, {}, Env::Default());
    ASSERT_TRUE(queue.ok()) << queue.status().ToString();
    std::vector<Message> copies(2);  // the producer resent it under a new message id
    for (Message& m : copies) {
      m.topic = kTopicPaySuccess;
      m.payload = ToPayload(PaySuccess{"P1", "O1", "U1", 5'000});
    }
    ASSERT_TRUE((*queue)->PublishBatch(copies).ok());
  }

  testing::ProcessResult run =
      testing::RunProcess({IDEM_PAYMENTS_SERVICE_PATH, "--until-idle", queue_path, store_path});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("received 2, applied 1, duplicates 1, parked 0"), std::string::npos) << run.out;
  EXPECT_NE(run.err.find("bank: confirm debit P1 of 5000 cents"), std::string::npos) << run.err;

  auto store = OpenStore(store_path, Env::Default());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(testing::QueryInt(**store, "SELECT COUNT(*) FROM pay_account_flows WHERE biz_no = 'P1'"), 1);
  EXPECT_EQ(testing::QueryInt(**store, "SELECT balance_cents FROM pay_accounts WHERE user_id = 'U1'"), 95'000);
  EXPECT_EQ(testing::QueryInt(**store, "SELECT COUNT(*) FROM pay_orders WHERE order_no = 'O1' AND status = 'PAID'"),
            1);
}

TEST(ServiceMain, AnUnknownOptionIsAUsageError) {
  testing::ProcessResult run = testing::RunProcess({IDEM_PAYMENTS_SERVICE_PATH, "--drain"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("usage:"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace idem::payments
