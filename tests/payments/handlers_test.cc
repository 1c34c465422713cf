// The payments handlers behind a real pipeline, SQLite store and embedded
// queue, one behaviour at a time. Assertions read the tables and the queue.
#include <gtest/gtest.h>

#include <set>

#include "idem/embedded_queue.h"
#include "idem/pipeline.h"
#include "payments/events.h"
#include "payments/handlers.h"
#include "payments/schema.h"
#include "sim/sim_env.h"
#include "demo/workload.h"
#include "testing/test_util.h"
#include "core/pipeline_test_hooks.h"

namespace idem::payments {
namespace {

using idem::testing::QueryInt;

// Remembers every call and the key it carried; a notice can be told to throw once.
class RecordingDownstream final : public Downstream {
 public:
  Status ConfirmDebit(const std::string& key, const std::string&, int64_t) override {
    debit_keys.push_back(key);
    return Status::OK();
  }
  Status SendNotice(const Notice& n) override {
    if (throw_once.erase(n.event_key)) throw std::runtime_error("notice service: connection reset");
    notice_keys.push_back(n.idempotency_key);
    return Status::OK();
  }
  std::vector<std::string> debit_keys, notice_keys;
  std::set<std::string> throw_once;
};

class HandlersTest : public ::testing::Test {
 protected:
  void SetUp() override { Open("store.db", "queue.db"); }

  // A fresh store and queue with the seed data, and a pipeline over them.
  void Open(const std::string& store_file, const std::string& queue_file, bool set_based = true) {
    auto s = OpenSqliteStore(dir_.File(store_file), {}, &env_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
    auto q = EmbeddedQueue::Open(dir_.File(queue_file), {}, &env_);
    ASSERT_TRUE(q.ok()) << q.status().ToString();
    queue_ = std::move(*q);
    ASSERT_TRUE(CreateSchema(*store_, SchemaVariant::kGuarded).ok());
    ASSERT_TRUE(SeedData(*store_, {{"U1", 100'000}, {"U2", 1'000}}, {{"SKU-A", 5'000, 10}},
                         {{"O1", "U1", "SKU-A", 1, 5'000}, {"O2", "U1", "SKU-A", 1, 5'000}, {"O3", "U2", "SKU-A", 1, 5'000}})
                    .ok());
    Make(true, set_based);
  }

  // `set_based` false: pay.success without its set-based form, one message at a time.
  void Make(bool protection = true, bool set_based = true) {
    PipelineOptions o;
    o.consumer_group = "payments";
    o.max_linger_ms = 0;
    pipeline_ = std::make_unique<Pipeline>(queue_.get(), store_.get(), &env_, o);
    if (!protection) PipelineTestHooks::TurnGuardOff(*pipeline_);
    ServiceOptions so{&downstream_, [this](std::string_view line) { log_.emplace_back(line); }};
    for (HandlerSpec& spec : PaymentHandlers(so)) {
      if (spec.topic == kTopicPaySuccess && !set_based) spec.batch_fn = nullptr;
      if (spec.topic == kTopicPaySuccess && spec.batch_fn) {
        BatchHandlerFn inner = spec.batch_fn;
        spec.batch_fn = [inner, this](std::span<HandlerContext* const> all) {
          std::vector<HandlerResult> out = inner(all);
          sets_++;
          bool ok = out.size() == all.size();
          for (const HandlerResult& r : out) ok = ok && r.outcome == HandlerResult::Outcome::kOk;
          sets_applied_ += ok;
          return out;
        };
      }
      ASSERT_TRUE(pipeline_->Register(std::move(spec)).ok());
    }
  }

  void Publish(const char* topic, const std::string& payload, const std::string& id = {}) {
    Message m;
    m.id = id;
    m.topic = topic;
    m.payload = payload;
    ASSERT_TRUE(queue_->Publish(m).ok());
  }
  void Pay(const std::string& payment, const std::string& order, const std::string& user, int64_t amount,
           const std::string& id = {}) {
    Publish(kTopicPaySuccess, ToPayload(PaySuccess{payment, order, user, amount}), id);
  }
  void Drain() {
    for (int i = 0; i < 100; ++i)
      if (pipeline_->RunOnce().polled == 0) return;
    FAIL() << "the queue never drained";
  }

  int64_t Int(const std::string& sql) { return QueryInt(*store_, sql); }
  int64_t Balance(const std::string& user) {
    return Int("SELECT balance_cents FROM pay_accounts WHERE user_id = '" + user + "'");
  }
  std::string State(const std::string& order) {
    auto tx = store_->Begin();
    auto rows = (*tx)->Query("SELECT status FROM pay_orders WHERE order_no = ?", {order});
    return rows.ok() && !rows->empty() ? AsText((*rows)[0][0]) : "";
  }
  std::string Dump(const std::string& sql) { return idem::testing::DumpRows(*store_, sql); }
  QueueStats Stats() { return *queue_->Stats(); }
  std::vector<DeadLetter> Dead() { return *queue_->List(100); }
  std::optional<Record> RecordOf(const std::string& key) { return *store_->ReadRecord("payments", key); }

  idem::testing::TempDir dir_;
  sim::SimEnv env_{/*seed=*/1, demo::kIncidentMorningMs};
  std::unique_ptr<Store> store_;
  std::unique_ptr<EmbeddedQueue> queue_;
  RecordingDownstream downstream_;
  std::vector<std::string> log_;
  std::unique_ptr<Pipeline> pipeline_;
  int sets_ = 0;          // calls of pay.success's set-based form
  int sets_applied_ = 0;  // of which every payment was Ok (nothing fell back)
};

TEST_F(HandlersTest, PaymentChargesOncePerPaymentIdAndPassesTheKeyDownstream) {
  Pay("P1", "O1", "U1", 5'000, "m1");
  Pay("P1", "O1", "U1", 5'000, "m2");  // the producer's resend under a new message id
  Drain();
  Pay("P1", "O1", "U1", 5'000, "m3");
  Drain();
  EXPECT_EQ(Int("SELECT COUNT(*) FROM pay_account_flows WHERE biz_no = 'P1' AND type = 'PAY_DEDUCT'"), 1);
  EXPECT_EQ(Balance("U1"), 95'000);
  EXPECT_EQ(State("O1"), "PAID");
  EXPECT_EQ(Int("SELECT points FROM pay_points WHERE payment_id = 'P1' AND scene = 'PAY'"), 50);
  EXPECT_EQ(Int("SELECT COUNT(*) FROM pay_notifications WHERE event_key = 'PAY_SUCCESS:P1'"), 1);
  EXPECT_EQ(downstream_.debit_keys, std::vector<std::string>{"pay.success:P1"});
  EXPECT_EQ(downstream_.notice_keys, std::vector<std::string>{"pay.success:P1"});
}

TEST_F(HandlersTest, ASecondPaymentOfTheSameAmountWithANewKeyIsApplied) {
  Pay("P1", "O1", "U1", 5'000);
  Pay("P2", "O2", "U1", 5'000);
  Drain();
  EXPECT_EQ(Int("SELECT COUNT(*) FROM pay_account_flows WHERE type = 'PAY_DEDUCT'"), 2);
  EXPECT_EQ(Balance("U1"), 90'000);
  EXPECT_EQ(State("O2"), "PAID");
}

TEST_F(HandlersTest, InsufficientBalanceIsRetriedUntilATopUpArrives) {
  Pay("P3", "O3", "U2", 5'000);
  Drain();
  EXPECT_EQ(Balance("U2"), 1'000) << "nothing deducted";
  EXPECT_EQ(State("O3"), "WAIT_PAY") << "the state change rolled back with the failed attempt";
  EXPECT_EQ(Stats().delayed, 1) << "waiting in the retry tier, not parked";
  ASSERT_TRUE(RecordOf("pay.success:P3").has_value());
  EXPECT_EQ(RecordOf("pay.success:P3")->status, RecordStatus::kReleased);
  EXPECT_NE(RecordOf("pay.success:P3")->last_error.find("insufficient balance"), std::string::npos);

  Publish(kTopicTopUp, ToPayload(TopUp{"T1", "U2", 4'500}));
  Drain();
  EXPECT_EQ(Balance("U2"), 5'500);
  env_.Advance(30'000);
  Drain();
  EXPECT_EQ(State("O3"), "PAID");
  EXPECT_EQ(Balance("U2"), 500);
  EXPECT_EQ(Int("SELECT COUNT(*) FROM pay_account_flows WHERE user_id = 'U2'"), 2);
}

TEST_F(HandlersTest, ALatePaidAfterShippedIsAckedWithoutEffectEvenWhenItsRecordIsGone) {
  Pay("P1", "O1", "U1", 5'000);
  Drain();
  Publish(kTopicShip, ToPayload(Ship{"O1", "SKU-A", 1}));
  Drain();
  ASSERT_EQ(State("O1"), "SHIPPED");
  // The consumption records are swept (retention), so only the business guards stand.
  auto swept = store_->SweepRecords(env_.NowMs() + 1, 1000);
  ASSERT_TRUE(swept.ok());
  ASSERT_EQ(*swept, 2);
  Pay("P1", "O1", "U1", 5'000);
  Drain();
  EXPECT_EQ(State("O1"), "SHIPPED") << "never moved back";
  EXPECT_EQ(Balance("U1"), 95'000) << "not charged again";
  EXPECT_EQ(Stats().dead, 0) << "a stale event is acknowledged, not parked";
  ASSERT_TRUE(RecordOf("pay.success:P1").has_value());
  EXPECT_EQ(RecordOf("pay.success:P1")->result_summary, "stale: state SHIPPED is already past PAID (ignored)");
  ASSERT_FALSE(log_.empty());
  EXPECT_NE(log_.back().find("stale"), std::string::npos) << log_.back();
}

TEST_F(HandlersTest, AnEarlyShipmentWaitsForThePaymentAndTakesStockOnce) {
  Publish(kTopicShip, ToPayload(Ship{"O1", "SKU-A", 1}));
  Drain();
  EXPECT_EQ(State("O1"), "WAIT_PAY");
  EXPECT_EQ(Stats().delayed, 1);
  Pay("P1", "O1", "U1", 5'000);
  Drain();
  env_.Advance(30'000);
  Drain();
  EXPECT_EQ(State("O1"), "SHIPPED");
  EXPECT_EQ(Int("SELECT quantity FROM pay_stock WHERE sku = 'SKU-A'"), 9);
  EXPECT_EQ(Int("SELECT version FROM pay_stock WHERE sku = 'SKU-A'"), 1);
  EXPECT_EQ(Int("SELECT COUNT(*) FROM pay_stock_moves WHERE order_no = 'O1'"), 1);
  Publish(kTopicFinish, ToPayload(Finish{"O1"}));
  Drain();
  EXPECT_EQ(State("O1"), "FINISHED");
}

TEST_F(HandlersTest, AnIllegalTransitionIsParkedWithItsReason) {
  Pay("P1", "O1", "U1", 5'000);
  Publish(kTopicRefund, ToPayload(Refund{"R1", "P1", "O1", "U1", 5'000}));
  Drain();
  ASSERT_EQ(State("O1"), "REFUNDED");
  Publish(kTopicShip, ToPayload(Ship{"O1", "SKU-A", 1}));
  Drain();
  EXPECT_EQ(State("O1"), "REFUNDED");
  EXPECT_EQ(Int("SELECT quantity FROM pay_stock WHERE sku = 'SKU-A'"), 10);
  auto dead = Dead();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].message.topic, kTopicShip);
  EXPECT_NE(dead[0].reason.find("illegal transition: order O1 illegal: REFUNDED cannot become SHIPPED"),
            std::string::npos)
      << dead[0].reason;
}

TEST_F(HandlersTest, ARefundHasItsOwnKeyAndCreditsOnce) {
  Pay("P1", "O1", "U1", 5'000);
  Drain();
  Publish(kTopicRefund, ToPayload(Refund{"R1", "P1", "O1", "U1", 5'000}), "r1");
  Publish(kTopicRefund, ToPayload(Refund{"R1", "P1", "O1", "U1", 5'000}), "r2");
  Drain();
  EXPECT_EQ(Balance("U1"), 100'000);
  EXPECT_EQ(Int("SELECT COUNT(*) FROM pay_account_flows WHERE biz_no = 'R1' AND type = 'REFUND'"), 1);
  EXPECT_TRUE(RecordOf("pay.refund:R1").has_value());
  EXPECT_TRUE(RecordOf("pay.success:P1").has_value());
  EXPECT_EQ(Int("SELECT COUNT(*) FROM pay_notifications WHERE event_key = 'REFUND:R1'"), 1);
}

TEST_F(HandlersTest, PointsAreGrantedOncePerPaymentAndScene) {
  Publish(kTopicPoints, ToPayload(PointsGrant{"P1", "CAMPAIGN", "U1", 30}), "a");
  Publish(kTopicPoints, ToPayload(PointsGrant{"P1", "CAMPAIGN", "U1", 30}), "b");
  Publish(kTopicPoints, ToPayload(PointsGrant{"P1", "BIRTHDAY", "U1", 5}), "c");
  Drain();
  EXPECT_EQ(Int("SELECT COUNT(*) FROM pay_points WHERE payment_id = 'P1'"), 2);
  EXPECT_EQ(Int("SELECT SUM(points) FROM pay_points WHERE payment_id = 'P1'"), 35);
  EXPECT_TRUE(RecordOf("points.grant:P1:CAMPAIGN").has_value());
}

TEST_F(HandlersTest, AThrowAfterTheChargeRollsItBackAndTheRetryChargesOnce) {
  downstream_.throw_once.insert("PAY_SUCCESS:P1");
  Pay("P1", "O1", "U1", 5'000);
  Drain();
  EXPECT_EQ(Balance("U1"), 100'000) << "the charge before the throw rolled back";
  EXPECT_EQ(Int("SELECT COUNT(*) FROM pay_account_flows"), 0);
  EXPECT_EQ(State("O1"), "WAIT_PAY");
  env_.Advance(30'000);
  Drain();
  EXPECT_EQ(Balance("U1"), 95'000);
  EXPECT_EQ(Int("SELECT COUNT(*) FROM pay_account_flows"), 1);
  // The bank was asked twice, with the same key both times, so it charges once.
  EXPECT_EQ(downstream_.debit_keys, (std::vector<std::string>{"pay.success:P1", "pay.success:P1"}));
}

TEST_F(HandlersTest, APaymentThatDoesNotMatchItsOrderIsParked) {
  Pay("P1", "O1", "U1", 4'999);
  Publish(kTopicPaySuccess, R"({"payment_id":"P9","order_no":"O1"})");
  Drain();
  auto dead = Dead();
  ASSERT_EQ(dead.size(), 2u);
  EXPECT_NE(dead[0].reason.find("does not match order O1"), std::string::npos) << dead[0].reason;
  EXPECT_NE(dead[1].reason.find("bad payload"), std::string::npos) << dead[1].reason;
  EXPECT_EQ(Balance("U1"), 100'000);
}

TEST_F(HandlersTest, WithoutRecordsTheBusinessGuardsAloneStillChargeOnce) {
  Make(/*protection=*/false);
  Pay("P1", "O1", "U1", 5'000, "m1");
  Pay("P1", "O1", "U1", 5'000, "m2");
  Drain();
  Publish(kTopicTopUp, ToPayload(TopUp{"T1", "U1", 100}), "t1");
  Publish(kTopicTopUp, ToPayload(TopUp{"T1", "U1", 100}), "t2");
  Drain();
  EXPECT_EQ(Int("SELECT COUNT(*) FROM pay_account_flows"), 2);
  EXPECT_EQ(Balance("U1"), 95'100);
  EXPECT_EQ(Int("SELECT COUNT(*) FROM idem_records"), 0) << "the guard was really off";
}

TEST_F(HandlersTest, ABatchOfPlainPaymentsIsChargedAsOneSet) {
  Pay("P1", "O1", "U1", 5'000);
  Pay("P2", "O2", "U1", 4'000 + 1'000);
  EXPECT_EQ(pipeline_->RunOnce().first, 2u);
  EXPECT_EQ(sets_, 1);
  EXPECT_EQ(sets_applied_, 1) << "nothing fell back";
  EXPECT_EQ(Balance("U1"), 90'000);
  EXPECT_EQ(Dump("SELECT order_no, status, payment_id, version FROM pay_orders ORDER BY order_no"),
            "O1|PAID|P1|1\nO2|PAID|P2|1\nO3|WAIT_PAY||0\n");
  EXPECT_EQ(Dump("SELECT biz_no, type, user_id, amount_cents FROM pay_account_flows ORDER BY biz_no"),
            "P1|PAY_DEDUCT|U1|-5000\nP2|PAY_DEDUCT|U1|-5000\n");
  EXPECT_EQ(Dump("SELECT payment_id, points FROM pay_points ORDER BY payment_id"), "P1|50\nP2|50\n");
  EXPECT_EQ(Dump("SELECT event_key, idempotency_key FROM pay_notifications ORDER BY event_key"),
            "PAY_SUCCESS:P1|pay.success:P1\nPAY_SUCCESS:P2|pay.success:P2\n");
  EXPECT_EQ(downstream_.debit_keys, (std::vector<std::string>{"pay.success:P1", "pay.success:P2"}));
  EXPECT_EQ(downstream_.notice_keys, (std::vector<std::string>{"pay.success:P1", "pay.success:P2"}));
  EXPECT_EQ(RecordOf("pay.success:P2")->result_summary, "charged 5000 cents to U1");
}

TEST_F(HandlersTest, AShortBalanceInABatchIsRetriedAloneAndTheOthersAreChargedOnce) {
  Pay("P1", "O1", "U1", 5'000);
  Pay("P3", "O3", "U2", 5'000);  // U2 has 1'000
  Pay("P2", "O2", "U1", 5'000);
  EXPECT_EQ(pipeline_->RunOnce().first, 2u);
  EXPECT_EQ(sets_, 1);
  EXPECT_EQ(sets_applied_, 0) << "the set fell back to one payment at a time";
  EXPECT_EQ(Balance("U1"), 90'000);
  EXPECT_EQ(Balance("U2"), 1'000);
  EXPECT_EQ(State("O3"), "WAIT_PAY");
  EXPECT_EQ(Int("SELECT COUNT(*) FROM pay_account_flows WHERE type = 'PAY_DEDUCT'"), 2);
  EXPECT_EQ(Stats().delayed, 1) << "P3 waits in the retry tier";
  EXPECT_EQ(downstream_.debit_keys, (std::vector<std::string>{"pay.success:P1", "pay.success:P2"}))
      << "the bank is called once per charged payment";
  EXPECT_EQ(log_, std::vector<std::string>{"payment P3: insufficient balance (retried later)"});

  Publish(kTopicTopUp, ToPayload(TopUp{"T1", "U2", 4'500}));
  Drain();
  env_.Advance(30'000);
  Drain();
  EXPECT_EQ(Balance("U2"), 500);
  EXPECT_EQ(State("O3"), "PAID");
  EXPECT_EQ(Balance("U1"), 90'000) << "the others are not charged again";
  EXPECT_EQ(downstream_.debit_keys.size(), 3u);
}

TEST_F(HandlersTest, AMixedBatchLeavesTheSameTablesAsOnePaymentAtATime) {
  // Charged, short, unknown order, mismatched amount, and a copy of a charged payment.
  auto run = [this] {
    Pay("P1", "O1", "U1", 5'000);
    Pay("P3", "O3", "U2", 5'000);
    Pay("P2", "O2", "U1", 5'000);
    Pay("P9", "O9", "U1", 5'000);
    Pay("P4", "O2", "U1", 4'000);
    Pay("P1", "O1", "U1", 5'000);
    Drain();
    Publish(kTopicTopUp, ToPayload(TopUp{"T1", "U2", 4'500}));
    Pay("P5", "O2", "U1", 5'000);  // a second payment of a paid order: stale or already, acknowledged
    Drain();
    env_.Advance(30'000);
    Drain();
    return Dump("SELECT order_no, status, payment_id, version FROM pay_orders ORDER BY order_no") +
           Dump("SELECT biz_no, type, user_id, amount_cents FROM pay_account_flows ORDER BY biz_no, type") +
           Dump("SELECT user_id, balance_cents FROM pay_accounts ORDER BY user_id") +
           Dump("SELECT payment_id, scene, user_id, points FROM pay_points ORDER BY payment_id") +
           Dump("SELECT event_key, idempotency_key, order_no, kind FROM pay_notifications ORDER BY event_key") +
           Dump("SELECT key, status, attempts, result_summary, last_error FROM idem_records ORDER BY key");
  };
  const std::string set_based = run();
  const std::vector<std::string> set_log = log_, set_debits = downstream_.debit_keys;
  EXPECT_GE(sets_, 1);
  EXPECT_EQ(sets_applied_, 0);

  log_.clear();
  downstream_.debit_keys.clear();
  Open("one.db", "one-queue.db", /*set_based=*/false);
  const std::string one_by_one = run();
  EXPECT_EQ(set_based, one_by_one);
  EXPECT_EQ(set_log, log_);
  // What the bank books: a batch that meets a failure runs again with a
  // savepoint per message, so the handlers before the failure call the bank
  // again with the same idempotency key, which the bank deduplicates.
  EXPECT_EQ(std::set<std::string>(set_debits.begin(), set_debits.end()),
            std::set<std::string>(downstream_.debit_keys.begin(), downstream_.debit_keys.end()));
  EXPECT_NE(set_based.find("O3|PAID|P3|1"), std::string::npos) << set_based;
}

}  // namespace
}  // namespace idem::payments
