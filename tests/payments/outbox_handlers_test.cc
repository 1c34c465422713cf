// pay.success with ServiceOptions::downstream_via_outbox: the points grant and
// the notice leave through the outbox, and the points and notice handlers
// apply them once the relay published them. Judged from the tables, the
// outbox and the calls the bank and notice service received.
#include <gtest/gtest.h>

#include "core/pipeline_test_fixture.h"
#include "demo/simulated_downstream.h"
#include "ops/outbox/relay.h"
#include "payments/events.h"
#include "payments/handlers.h"
#include "payments/schema.h"
#include "testing/test_util.h"

namespace idem::payments {
namespace {

using idem::testing::QueryInt;

// The pipeline fixture's store, queue and manual clock, with the payments tables.
class OutboxHandlersTest : public PipelineFixture {
 protected:
  void SetUp() override {
    PipelineFixture::SetUp();
    ASSERT_TRUE(CreateSchema(*store_, SchemaVariant::kGuarded).ok());
    ASSERT_TRUE(SeedData(*store_, {{"U1", 100'000}}, {{"SKU-A", 5'000, 10}}, {{"O1", "U1", "SKU-A", 1, 5'000}}).ok());
  }

  // pay.success through the outbox, and the points and notice consumers, on one queue.
  void Start(demo::SimulatedDownstream::Faults faults = {}) {
    PipelineOptions o;
    o.max_linger_ms = 0;
    o.retry.ladder_ms = {1'000};
    pipeline_ = std::make_unique<Pipeline>(queue_.get(), store_.get(), &env_, o);
    downstream_ = std::make_unique<demo::SimulatedDownstream>(&env_, std::move(faults));
    ServiceOptions so;
    so.downstream = downstream_.get();
    so.downstream_via_outbox = true;
    for (HandlerSpec h : {PaySuccessHandler(so), PointsHandler(so), NoticeHandler(so)})
      ASSERT_TRUE(pipeline_->Register(std::move(h)).ok());
  }

  void Pay() {
    Message m;
    m.topic = kTopicPaySuccess;
    m.payload = ToPayload(PaySuccess{"P1", "O1", "U1", 5'000});
    ASSERT_TRUE(queue_->Publish(m).ok());
  }
  // Consumes and relays until neither has anything left, moving the clock past retry delays.
  void Settle() {
    outbox::Relay relay(*store_, queue_->publisher());
    for (int i = 0; i < 20; ++i) {
      size_t polled = 0;
      for (BatchReport r; (r = pipeline_->RunOnce()).polled > 0;) polled += r.polled;
      auto step = relay.RelayOnce(env_.NowMs());
      ASSERT_TRUE(step.ok()) << step.status().ToString();
      if (polled == 0 && step->claimed == 0 && queue_->Stats()->delayed == 0) return;
      env_.SleepMs(1'000);
    }
    FAIL() << "never settled";
  }
  int64_t Count(const std::string& sql) { return QueryInt(*store_, sql); }

  std::unique_ptr<Pipeline> pipeline_;
  std::unique_ptr<demo::SimulatedDownstream> downstream_;
};

TEST_F(OutboxHandlersTest, PaymentEmitsTheGrantAndTheNoticeInsteadOfApplyingThem) {
  Start();
  Pay();
  ASSERT_GT(pipeline_->RunOnce().polled, 0u);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM pay_account_flows"), 1);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM pay_points"), 0) << "not granted in the payment's transaction";
  EXPECT_EQ(Count("SELECT COUNT(*) FROM pay_notifications"), 0);
  EXPECT_EQ(downstream_->stats().notice_calls, 0) << "no notice sent from the payment";
  EXPECT_EQ(Count("SELECT COUNT(*) FROM idem_outbox WHERE topic = 'points.grant' AND msg_key = 'P1/PAY'"), 1);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM idem_outbox WHERE topic = 'notice.send' AND msg_key = 'PAY_SUCCESS:P1'"), 1);

  Settle();
  EXPECT_EQ(Count("SELECT points FROM pay_points WHERE payment_id = 'P1' AND scene = 'PAY'"), 50);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM pay_notifications WHERE event_key = 'PAY_SUCCESS:P1'"), 1);
  EXPECT_EQ(downstream_->stats().notice_calls, 1);
}

// In the payment's own transaction a throwing notice re-runs the whole payment
// (and calls the bank again); through the outbox only the notice is retried.
TEST_F(OutboxHandlersTest, ANoticeThatThrowsRetriesTheNoticeNotThePayment) {
  demo::SimulatedDownstream::Faults faults;
  faults.notice_throws_once.insert("PAY_SUCCESS:P1");
  Start(std::move(faults));
  Pay();
  Settle();
  EXPECT_EQ(downstream_->stats().debit_calls, 1) << "the bank was asked once";
  EXPECT_EQ(Count("SELECT COUNT(*) FROM pay_account_flows"), 1);
  EXPECT_EQ(Count("SELECT balance_cents FROM pay_accounts WHERE user_id = 'U1'"), 100'000 - 5'000);
  EXPECT_EQ(downstream_->stats().notice_calls, 2) << "the throw, then the retry of the notice alone";
  EXPECT_EQ(downstream_->stats().notices_delivered, 1);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM pay_points"), 1);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM idem_records WHERE status = 'SUCCEEDED'"), 3);
}

}  // namespace
}  // namespace idem::payments
