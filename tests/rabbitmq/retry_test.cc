// The retry ladder through TTL wait queues, and the terminal queue after the
// last attempt or a permanent failure.
#include <atomic>

#include "rabbitmq/rabbit_fixture.h"

namespace idem::testing {
namespace {

class RabbitRetry : public RabbitTest {
 protected:
  // PayHandler that fails retryably on its first `failures` runs.
  HandlerSpec FlakyPay(int failures) {
    HandlerSpec spec = PayHandler();
    spec.fn = [inner = spec.fn, failures, this](HandlerContext& ctx) {
      attempts_seen_.push_back(ctx.attempt);
      deaths_seen_.push_back(ctx.message.headers.count("x-death") ? ctx.message.headers.at("x-death") : "");
      if (++runs_ <= failures) return HandlerResult::Retryable("bank timeout");
      return inner(ctx);
    };
    return spec;
  }

  std::unique_ptr<Pipeline> PipelineWith(Source* source, HandlerSpec spec, PipelineOptions o = Options()) {
    auto p = std::make_unique<Pipeline>(source, store_.get(), Env::Default(), o);
    EXPECT_TRUE(p->Register(std::move(spec)).ok());
    return p;
  }

  std::atomic<int> runs_{0};
  std::vector<int> attempts_seen_;
  std::vector<std::string> deaths_seen_;
};

TEST_F(RabbitRetry, RetryableFailureWalksTheLadderThenSucceeds) {
  IDEM_REQUIRE_RABBITMQ();
  Publish({R"({"payment_id":"P1","amount":199,"user":"u1"})"});
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  PipelineOptions o = Options();
  o.retry.ladder_ms = {100, 250};
  o.retry.max_attempts = 5;
  auto pipeline = PipelineWith(&broker->source(), FlakyPay(2), o);
  ASSERT_TRUE(RunUntil(*pipeline, [&] { return Effects("P1") == 1; }));

  EXPECT_EQ(runs_, 3);
  EXPECT_EQ(pipeline->counters().retried, 2);
  EXPECT_EQ(pipeline->counters().first, 1);
  // The record's attempt went 1, 2, 3, and the broker's own x-death history shows
  // one pass through each rung's wait queue.
  EXPECT_EQ(attempts_seen_, (std::vector<int>{1, 2, 3}));
  ASSERT_EQ(deaths_seen_.size(), 3u);
  EXPECT_EQ(deaths_seen_[0], "");
  EXPECT_NE(deaths_seen_[1].find(queue_ + ".wait.100"), std::string::npos) << deaths_seen_[1];
  EXPECT_NE(deaths_seen_[2].find(queue_ + ".wait.250"), std::string::npos) << deaths_seen_[2];
  EXPECT_NE(deaths_seen_[2].find(queue_ + ".wait.100"), std::string::npos) << deaths_seen_[2];
  EXPECT_EQ(Balance(*store_, "u1"), 1'000'000 - 199);

  pipeline.reset();
  broker.reset();
  QueueStats st = Stats();
  EXPECT_EQ(st.ready, 0);
  EXPECT_EQ(st.delayed, 0);
  EXPECT_EQ(st.dead, 0);
}

TEST_F(RabbitRetry, PermanentFailureIsParkedAtOnceWithItsReason) {
  IDEM_REQUIRE_RABBITMQ();
  Publish({R"({"payment_id":"P1","amount":5,"fail":"permanent"})"});
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  auto pipeline = NewPipeline(&broker->source());
  ASSERT_TRUE(RunUntil(*pipeline, [&] { return pipeline->counters().parked == 1; }));
  EXPECT_EQ(pipeline->counters().retried, 0);

  std::vector<DeadLetter> dead = Dead();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].reason, "bad payment");
  EXPECT_EQ(dead[0].attempts, 1);
  EXPECT_EQ(dead[0].message.topic, "pay");
  EXPECT_EQ(dead[0].message.payload, R"({"payment_id":"P1","amount":5,"fail":"permanent"})");
  EXPECT_GT(dead[0].last_failed_ms, 0);
  EXPECT_GT(dead[0].id, 0);
  EXPECT_EQ(Effects("P1"), 0);
  broker.reset();
  EXPECT_EQ(Stats().ready, 0);
}

TEST_F(RabbitRetry, RetryableFailureIsParkedAfterTheLastAttempt) {
  IDEM_REQUIRE_RABBITMQ();
  Publish({R"({"payment_id":"P1","amount":5})"});
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  PipelineOptions o = Options();
  o.retry.ladder_ms = {100, 150};
  o.retry.max_attempts = 3;
  auto pipeline = PipelineWith(&broker->source(), FlakyPay(1'000), o);
  ASSERT_TRUE(RunUntil(*pipeline, [&] { return pipeline->counters().parked == 1; }));

  EXPECT_EQ(runs_, 3);
  EXPECT_EQ(pipeline->counters().retried, 2);
  std::vector<DeadLetter> dead = Dead();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].reason, "gave up after 3 attempts: bank timeout");
  EXPECT_EQ(dead[0].attempts, 3);
  EXPECT_LE(dead[0].first_failed_ms, dead[0].last_failed_ms);
  EXPECT_EQ(Effects("P1"), 0);
  broker.reset();
  QueueStats st = Stats();
  EXPECT_EQ(st.ready, 0);
  EXPECT_EQ(st.delayed, 0);
  EXPECT_EQ(st.dead, 1);
}

// A release longer than release_min_delay_ms waits in a hold queue and comes
// back without counting as an attempt.
TEST_F(RabbitRetry, LongReleaseWaitsInAHoldQueue) {
  IDEM_REQUIRE_RABBITMQ();
  Publish({R"({"payment_id":"P1","amount":1})"});
  auto broker = OpenQueue("release_min_delay_ms=100");
  ASSERT_NE(broker, nullptr);
  auto first = broker->source().Poll(10, 5'000);
  ASSERT_TRUE(first.ok() && first->size() == 1u);
  ASSERT_TRUE(broker->source().Settle({Settlement{&(*first)[0], Settlement::Kind::kRelease, 300, "in flight elsewhere"}}).ok());
  std::vector<Message> again;
  const int64_t deadline_us = Env::Default()->MonotonicMicros() + 20'000'000;
  while (again.empty() && Env::Default()->MonotonicMicros() < deadline_us) {
    auto got = broker->source().Poll(10, 200);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    again = *got;
  }
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].id, (*first)[0].id);
  EXPECT_EQ(again[0].topic, "pay");
  EXPECT_EQ(again[0].payload, (*first)[0].payload);
  EXPECT_NE(again[0].headers.at("x-death").find(queue_ + ".hold.1000"), std::string::npos);
  ASSERT_TRUE(broker->source().Settle({Settlement{&again[0], Settlement::Kind::kAck, 0, ""}}).ok());
}

}  // namespace
}  // namespace idem::testing
