// The broker goes away or stops taking messages in the middle of a run. Nothing
// may be lost and nothing applied twice. These tests stop or block the shared
// test broker, so ctest runs them alone (RUN_SERIAL, suite RabbitBrokerOutage).
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "rabbitmq/rabbit_fixture.h"

namespace idem::testing {
namespace {

class RabbitBrokerOutage : public RabbitTest {
 protected:
  void SetUp() override {
    RabbitTest::SetUp();
    const char* script = std::getenv("IDEM_TEST_RABBITMQ_SCRIPT");
    script_ = script ? script : "";
  }
  void Ctl(const std::vector<std::string>& command) {
    if (command[0] == "stop_app") stopped_ = true;
    if (command[0] == "set_vm_memory_high_watermark") blocked_ = command[1] == "0";
    std::vector<std::string> argv{script_, "ctl"};
    argv.insert(argv.end(), command.begin(), command.end());
    CommandResult r = RunCommand(argv);
    ASSERT_EQ(r.status, 0) << "rabbitmqctl " << command[0] << " failed: " << r.out;
    if (command[0] == "start_app") stopped_ = false;
  }
  // Whatever a test left behind is undone, so a failing test cannot leave the
  // shared broker stopped or blocked for the tests after it.
  void TearDown() override {
    if (stopped_) (void)RunCommand({script_, "ctl", "start_app"});
    if (blocked_) (void)RunCommand({script_, "ctl", "set_vm_memory_high_watermark", "0.4"});
  }
  std::string script_;
  bool stopped_ = false, blocked_ = false;
};

#define IDEM_REQUIRE_RABBITMQ_CTL()                                                                     \
  do {                                                                                                 \
    IDEM_REQUIRE_RABBITMQ();                                                                           \
    if (script_.empty())                                                                               \
      GTEST_SKIP() << "IDEM_TEST_RABBITMQ_SCRIPT is not set (scripts/servers/rabbitmq.sh start sets it)"; \
  } while (0)

TEST_F(RabbitBrokerOutage, BrokerRestartMidRunLosesNothingAndDuplicatesNothing) {
  IDEM_REQUIRE_RABBITMQ_CTL();

  constexpr int kMessages = 200;
  std::vector<std::string> bodies;
  for (int i = 0; i < kMessages; ++i)
    bodies.push_back(R"({"payment_id":"P)" + std::to_string(i) + R"(","amount":1,"user":"u1","flaky":)" +
                     (i % 10 == 0 ? "true" : "false") + "}");
  Publish(bodies);

  // Every tenth payment fails once, so retries sit in a wait queue across the restart.
  std::set<std::string> failed_once;
  HandlerSpec spec = PayHandler();
  spec.fn = [inner = spec.fn, &failed_once](HandlerContext& ctx) {
    auto doc = nlohmann::json::parse(ctx.message.payload);
    if (doc.value("flaky", false) && failed_once.insert(ctx.idempotency_key).second)
      return HandlerResult::Retryable("bank timeout");
    return inner(ctx);
  };
  PipelineOptions o = Options();
  o.batch_size = 20;
  o.retry.ladder_ms = {300};
  o.retry.max_attempts = 5;

  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  RecordingSource recording(&broker->source());
  bool stopped = false, started = false;
  // Stops the broker once a quarter of the work is done, inside Settle: the
  // batch's transaction has committed and its acks and moves are not yet sent.
  recording.before_settle = [&](const std::vector<Settlement>&) {
    if (!stopped && CountEffects(*store_) >= kMessages / 4) {
      stopped = true;
      Ctl({"stop_app"});
    }
  };
  Pipeline pipeline(&recording, store_.get(), Env::Default(), o);
  ASSERT_TRUE(pipeline.Register(spec).ok());

  int failed_batches = 0;
  const int64_t deadline_us = Env::Default()->MonotonicMicros() + 120'000'000;
  while (!(started && CountEffects(*store_) == kMessages)) {
    ASSERT_LT(Env::Default()->MonotonicMicros(), deadline_us)
        << "only " << CountEffects(*store_) << " of " << kMessages << " effects";
    BatchReport r = pipeline.RunOnce();
    if (!r.status.ok()) ++failed_batches;
    // Start it again once the pipeline has run into the outage a few times.
    if (stopped && !started && failed_batches >= 3) {
      Ctl({"start_app"});
      started = true;
    }
  }
  // Let the copies of the interrupted batch and the retries' leftovers drain.
  ASSERT_TRUE(RunUntil(pipeline, [&] {
    auto st = broker->Stats();
    return st.ok() && st->ready == 0 && st->delayed == 0;
  }));
  (void)pipeline.RunOnce();

  EXPECT_TRUE(stopped);
  EXPECT_GE(failed_batches, 3);
  EXPECT_GE(pipeline.counters().duplicate, 1) << "the batch committed before the stop came back and was absorbed";
  EXPECT_GE(pipeline.counters().retried, kMessages / 10);
  EXPECT_EQ(CountEffects(*store_), kMessages);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(DISTINCT key) FROM effects"), kMessages);
  EXPECT_EQ(Balance(*store_, "u1"), 1'000'000 - kMessages);

  broker.reset();
  QueueStats st = Stats();
  EXPECT_EQ(st.ready, 0);
  EXPECT_EQ(st.delayed, 0);
  EXPECT_EQ(st.dead, 0);
}

// A memory alarm blocks every publisher while consumers go on. A retry move
// cannot be confirmed, so it stays pending with its original unacknowledged,
// and is awaited rather than published again; once the alarm clears, the move
// completes and the original is acked. The handler never runs an extra time,
// and no extra copy is made.
TEST_F(RabbitBrokerOutage, BlockedPublisherKeepsTheMovePendingWithoutLosingIt) {
  IDEM_REQUIRE_RABBITMQ_CTL();
  Publish({R"({"payment_id":"P1","amount":4,"user":"u1"})"});
  int runs = 0;
  HandlerSpec spec = PayHandler();
  spec.fn = [inner = spec.fn, &runs](HandlerContext& ctx) {
    return ++runs == 1 ? HandlerResult::Retryable("bank timeout") : inner(ctx);
  };
  PipelineOptions o = Options();
  o.retry.ladder_ms = {100};
  auto broker = OpenQueue("rpc_timeout_ms=1000");
  ASSERT_NE(broker, nullptr);
  Pipeline pipeline(&broker->source(), store_.get(), Env::Default(), o);
  ASSERT_TRUE(pipeline.Register(spec).ok());

  Ctl({"set_vm_memory_high_watermark", "0"});  // every publisher is blocked from now on
  BatchReport failed;
  const int64_t deadline_us = Env::Default()->MonotonicMicros() + 30'000'000;
  while (failed.retried == 0 && Env::Default()->MonotonicMicros() < deadline_us) failed = pipeline.RunOnce();
  EXPECT_EQ(failed.retried, 1u);
  EXPECT_FALSE(failed.status.ok()) << "the move to the wait queue could not be confirmed";
  BatchReport stalled = pipeline.RunOnce();  // the pending move is tried first, and fails again
  EXPECT_FALSE(stalled.status.ok());
  EXPECT_EQ(stalled.polled, 0u);
  Ctl({"set_vm_memory_high_watermark", "0.4"});

  ASSERT_TRUE(RunUntil(pipeline, [&] { return Effects("P1") == 1; }));
  EXPECT_EQ(runs, 2) << "the original was neither requeued nor run again while its move was pending";
  EXPECT_EQ(pipeline.counters().retried, 1);
  EXPECT_EQ(pipeline.counters().first, 1);
  EXPECT_EQ(pipeline.counters().duplicate, 0) << "the held move was awaited, not published again";
  EXPECT_EQ(Effects("P1"), 1);
  EXPECT_EQ(Balance(*store_, "u1"), 1'000'000 - 4);
  broker.reset();
  QueueStats st = Stats();
  EXPECT_EQ(st.ready, 0);
  EXPECT_EQ(st.delayed, 0);
  EXPECT_EQ(st.dead, 0);
}

}  // namespace
}  // namespace idem::testing
