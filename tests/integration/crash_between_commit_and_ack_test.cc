// A consumer is killed with SIGKILL after its transaction committed and before
// the ack reached the queue. The redelivered copy must be acked as a
// DUPLICATE with no second effect.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "idem/embedded_queue.h"
#include "idem/pipeline.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using namespace idem::testing;

// Passes polls through; dies the moment the pipeline tries to settle.
class DieOnSettle final : public Source {
 public:
  explicit DieOnSettle(Source* inner) : inner_(inner) {}
  Result<std::vector<Message>> Poll(size_t n, int64_t wait_ms) override { return inner_->Poll(n, wait_ms); }
  Status Settle(const std::vector<Settlement>&) override {
    kill(getpid(), SIGKILL);
    return Status::OK();
  }
  Status Abandon() override { return inner_->Abandon(); }

 private:
  Source* inner_;
};

TEST(CrashBetweenCommitAndAckTest, RedeliveryIsAckedAsDuplicateWithNoSecondEffect) {
  TempDir dir;
  {
    auto store = OpenSqliteStore(dir.File("store.db"), {}, Env::Default());
    ASSERT_TRUE(store.ok());
    CreateEffectTables(**store);
    auto queue = EmbeddedQueue::Open(dir.File("queue.db"), {}, Env::Default());
    ASSERT_TRUE(queue.ok());
    Message m;
    m.topic = "pay";
    m.id = "pay-P20260928001";
    m.payload = R"({"payment_id":"P20260928001","amount":19900})";
    ASSERT_TRUE((*queue)->Publish(m).ok());
  }

  pid_t kid = fork();
  ASSERT_GE(kid, 0);
  if (kid == 0) {
    auto store = OpenSqliteStore(dir.File("store.db"), {}, Env::Default());
    auto queue = EmbeddedQueue::Open(dir.File("queue.db"), {}, Env::Default());
    if (!store.ok() || !queue.ok()) _exit(10);
    DieOnSettle dying(queue->get());
    Pipeline p(&dying, store->get(), Env::Default(), PipelineOptions{});
    if (!p.Register(PayHandler()).ok()) _exit(11);
    p.RunOnce();
    _exit(12);  // not reached: Settle kills the process
  }
  int status = 0;
  ASSERT_EQ(waitpid(kid, &status, 0), kid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the consumer should have been killed";

  // The effect committed; the message was never acked.
  auto store = OpenSqliteStore(dir.File("store.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok());
  ASSERT_EQ(CountEffects(**store), 1);
  ASSERT_EQ(Balance(**store, "u1"), 1000000 - 19900);

  // A consumer after the visibility timeout: time is moved, not waited for.
  ManualEnv later(Env::Default()->NowMs() + 31'000);
  auto queue = EmbeddedQueue::Open(dir.File("queue.db"), {}, &later);
  ASSERT_TRUE(queue.ok());
  PipelineOptions o;
  o.max_linger_ms = 0;
  Pipeline p(queue->get(), store->get(), &later, o);
  ASSERT_TRUE(p.Register(PayHandler()).ok());
  std::vector<Decision> decisions;
  p.SetDecisionSink([&](const Decision& d) { decisions.push_back(d); });
  BatchReport r = p.RunOnce();
  ASSERT_EQ(r.polled, 1u);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].kind, DecisionKind::kDuplicate);
  EXPECT_EQ(decisions[0].delivery_count, 2);
  EXPECT_EQ(CountEffects(**store), 1) << "no second charge";
  EXPECT_EQ(Balance(**store, "u1"), 1000000 - 19900);
  auto stats = (*queue)->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->ready + stats->delayed + stats->in_flight + stats->dead, 0) << "the duplicate was acked";
}

}  // namespace
}  // namespace idem
