// The chain pay → outbox → broker → points consumer behind idem, with the relay
// SIGKILLed between the broker's confirm and the mark: every payment still
// yields exactly one points grant, counted with SQL.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "core/pipeline_test_fixture.h"
#include "idem/embedded_queue.h"
#include "ops/outbox/relay.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using testing::QueryInt;

// Forwards, then kills its own process once the broker confirmed: the relay
// dies after publishing and before marking the rows sent.
class KillAfterConfirm final : public Publisher {
 public:
  explicit KillAfterConfirm(Publisher& inner) : inner_(inner) {}
  Status PublishBatch(std::vector<Message>& messages, int64_t delay_ms) override {
    Status s = inner_.PublishBatch(messages, delay_ms);
    if (s.ok()) ::kill(::getpid(), SIGKILL);
    return s;
  }

 private:
  Publisher& inner_;
};

// pay: charges (the test's effects table) and emits points.grant keyed by the payment.
HandlerSpec PayEmittingPoints() {
  HandlerSpec spec = testing::PayHandler();
  spec.fn = [charge = spec.fn](HandlerContext& ctx) {
    HandlerResult r = charge(ctx);
    if (r.outcome != HandlerResult::Outcome::kOk) return r;
    const std::string id = ctx.payload.Text("payment_id").value_or("");
    Status s = ctx.Emit({"points.grant", "points:" + id, R"({"payment_id":")" + id + "\"}", {}});
    return s.ok() ? r : HandlerResult::FromStatus(s, "emit points.grant");
  };
  return spec;
}

// points.grant behind idem, keyed by the producer's business key.
HandlerSpec PointsFromKey() {
  HandlerSpec spec;
  spec.topic = "points.grant";
  spec.fn = [](HandlerContext& ctx) {
    Status s =
        ctx.tx.Exec("INSERT INTO points (payment_id) VALUES (?)", {ctx.payload.Text("payment_id").value_or("")})
            .status();
    return s.ok() ? HandlerResult::Ok() : HandlerResult::FromStatus(s, "grant points");
  };
  return spec;
}

using OutboxChainTest = PipelineFixture;

TEST_F(OutboxChainTest, RelayKilledBetweenConfirmAndMarkStillYieldsOneGrantPerPayment) {
  constexpr int kPayments = 20;
  ASSERT_TRUE(store_->ExecScript("CREATE TABLE points (payment_id TEXT NOT NULL)").ok());
  for (int i = 0; i < kPayments; ++i) Publish(R"({"payment_id":"P)" + std::to_string(i) + R"(","amount":1})");
  Drain(*Make({}, PayEmittingPoints()));
  ASSERT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_outbox WHERE state = 'PENDING'"), kPayments);

  const std::string points_queue = dir_.File("points.db");
  outbox::RelayOptions options;
  options.claim_ms = 30'000;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the relay process: its own connections, killed by its publisher
    auto store = OpenSqliteStore(dir_.File("store.db"), {}, &env_);
    auto queue = EmbeddedQueue::Open(points_queue, {}, &env_);
    if (!store.ok() || !queue.ok()) ::_exit(3);
    KillAfterConfirm publisher((*queue)->publisher());
    outbox::Relay relay(**store, publisher, options);
    (void)relay.RelayOnce(env_.NowMs());
    ::_exit(4);  // not reached when the publish succeeded
  }
  int wstatus = 0;
  ASSERT_EQ(::waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL) << "the relay was not killed after its publish";
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_outbox WHERE state = 'SENT'"), 0) << "never marked";

  // A new relay publishes the claimed rows again once the claim expired.
  auto points = EmbeddedQueue::Open(points_queue, {}, &env_);
  ASSERT_TRUE(points.ok());
  outbox::Relay relay(*store_, (*points)->publisher(), options);
  env_.SleepMs(options.claim_ms);
  auto step = relay.RelayOnce(env_.NowMs());
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_EQ(step->published, kPayments);
  EXPECT_EQ((*points)->Stats()->ready, 2 * kPayments) << "every grant is on the broker twice";

  Pipeline consumer(points->get(), store_.get(), &env_, PipelineOptions{});
  ASSERT_TRUE(consumer.Register(PointsFromKey()).ok());
  Drain(consumer);
  EXPECT_EQ((*points)->Stats()->in_flight, 0);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM points"), kPayments);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(DISTINCT payment_id) FROM points"), kPayments);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_outbox WHERE state = 'SENT'"), kPayments);
  EXPECT_EQ((*points)->Stats()->ready + (*points)->Stats()->delayed + (*points)->Stats()->dead, 0);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_records WHERE key LIKE 'points.grant:%' AND status = 'SUCCEEDED'"), kPayments);
}

}  // namespace
}  // namespace idem
