// The broker stops in the middle of a run - with a committed batch not yet
// acked and retries waiting in the wait queues - and starts again. Nothing may
// be lost and nothing applied twice. This test stops the shared test broker,
// so ctest runs it alone (RUN_SERIAL).
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "rabbitmq/rabbit_fixture.h"

namespace idem::testing {
namespace {

class RabbitBrokerRestart : public RabbitTest {
 protected:
  void Ctl(const std::string& command) {
    CommandResult r = RunCommand({script_, "ctl", command});
    ASSERT_EQ(r.status, 0) << "rabbitmqctl " << command << " failed: " << r.out;
  }
  std::string script_;
};

TEST_F(RabbitBrokerRestart, BrokerRestartMidRunLosesNothingAndDuplicatesNothing) {
  IDEM_REQUIRE_RABBITMQ();
  const char* script = std::getenv("IDEM_TEST_RABBITMQ_SCRIPT");
  if (!script) GTEST_SKIP() << "IDEM_TEST_RABBITMQ_SCRIPT is not set (scripts/servers/rabbitmq.sh start sets it)";
  script_ = script;

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
  RecordingSource recording(broker.get());
  bool stopped = false, started = false;
  // Stops the broker once a quarter of the work is done, inside Settle: the
  // batch's transaction has committed and its acks and moves are not yet sent.
  recording.before_settle = [&](const std::vector<Settlement>&) {
    if (!stopped && CountEffects(*store_) >= kMessages / 4) {
      stopped = true;
      Ctl("stop_app");
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
      Ctl("start_app");
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

}  // namespace
}  // namespace idem::testing
