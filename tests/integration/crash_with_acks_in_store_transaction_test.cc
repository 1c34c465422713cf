// The embedded queue in the store's own SQLite file: the pipeline writes a
// batch's acks in the store's transaction. A consumer killed with SIGKILL
// right after a commit has nothing left to redeliver (the acks committed with
// the effects); one killed just before the commit loses nothing (the effects
// and the acks rolled back together, and the messages come back). Either way
// every payment is charged once.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "idem/embedded_queue.h"
#include "idem/pipeline.h"
#include "sim/sim_env.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using namespace idem::testing;

constexpr int kPayments = 30;
constexpr size_t kBatch = 10;
constexpr int64_t kAmount = 100;
constexpr int64_t kOpening = 1000000;

enum class DieAt { kAfterSecondCommit, kBeforeSecondCommit };

// The queue, passed through, with the seam; kills the process at the second
// batch's commit point: just after it (the acks were in the transaction, or —
// when the pipeline does not use the seam — the Settle after it), or inside the
// open transaction just before it.
class DieAtSecondBatch final : public ForwardingSource, public SettlesInStoreTransaction {
 public:
  DieAtSecondBatch(EmbeddedQueue* queue, DieAt at)
      : ForwardingSource(queue), seam_(queue->settles_in_store_transaction()), at_(at) {}
  Status Settle(const std::vector<Settlement>& s) override {
    if (at_ == DieAt::kAfterSecondCommit && ++committed_ == 2) kill(getpid(), SIGKILL);
    return inner().Settle(s);
  }
  SettlesInStoreTransaction* settles_in_store_transaction() override { return this; }
  Result<bool> AckInTransaction(StoreTx& tx, const std::vector<const Message*>& messages) override {
    Result<bool> wrote = seam_->AckInTransaction(tx, messages);
    if (at_ == DieAt::kBeforeSecondCommit && ++written_ == 2) kill(getpid(), SIGKILL);
    return wrote;
  }
  void AckCommitted(const std::vector<const Message*>& messages) override {
    if (at_ == DieAt::kAfterSecondCommit && ++committed_ == 2) kill(getpid(), SIGKILL);
    seam_->AckCommitted(messages);
  }

 private:
  SettlesInStoreTransaction* seam_;
  DieAt at_;
  int committed_ = 0, written_ = 0;
};

void PublishPayments(const std::string& file) {
  auto store = OpenSqliteStore(file, {}, Env::Default());
  ASSERT_TRUE(store.ok());
  CreateEffectTables(**store);
  auto queue = EmbeddedQueue::Open(file, {}, Env::Default());
  ASSERT_TRUE(queue.ok());
  for (int i = 1; i <= kPayments; ++i) {
    Message m;
    m.topic = "pay";
    m.id = "pay-P" + std::to_string(i);
    m.payload = R"({"payment_id":"P)" + std::to_string(i) + R"(","amount":)" + std::to_string(kAmount) + "}";
    ASSERT_TRUE((*queue)->Publish(m).ok());
  }
}

// Forks a consumer of `file` (queue and store) and expects it to die by SIGKILL at `at`.
void ConsumeUntilKilled(const std::string& file, DieAt at) {
  pid_t kid = fork();
  ASSERT_GE(kid, 0);
  if (kid == 0) {
    auto store = OpenSqliteStore(file, {}, Env::Default());
    auto queue = EmbeddedQueue::Open(file, {}, Env::Default());
    if (!store.ok() || !queue.ok()) _exit(10);
    DieAtSecondBatch dying(queue->get(), at);
    PipelineOptions o;
    o.batch_size = kBatch;
    o.max_linger_ms = 0;
    Pipeline p(&dying, store->get(), Env::Default(), o);
    if (!p.Register(PayHandler()).ok()) _exit(11);
    for (int i = 0; i < kPayments; ++i) p.RunOnce();
    _exit(12);  // not reached: the second batch kills the process
  }
  int status = 0;
  ASSERT_EQ(waitpid(kid, &status, 0), kid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the consumer should have been killed at the second batch (exit code "
      << (WIFEXITED(status) ? WEXITSTATUS(status) : -1) << ")";
}

// A consumer after every lease ran out (time is moved, not waited for) drains the queue.
std::vector<Decision> ConsumeTheRest(const std::string& file, Store& store) {
  sim::SimEnv later(/*seed=*/42, Env::Default()->NowMs() + 31'000);
  auto queue = EmbeddedQueue::Open(file, {}, &later);
  EXPECT_TRUE(queue.ok());
  if (!queue.ok()) return {};
  PipelineOptions o;
  o.batch_size = kBatch;
  o.max_linger_ms = 0;
  Pipeline p(queue->get(), &store, &later, o);
  EXPECT_TRUE(p.Register(PayHandler()).ok());
  std::vector<Decision> decisions;
  p.SetDecisionSink([&](const Decision& d) { decisions.push_back(d); });
  EXPECT_TRUE(p.Run(nullptr, /*until_idle=*/true).ok());
  auto stats = (*queue)->Stats();
  EXPECT_TRUE(stats.ok());
  if (stats.ok()) {
    EXPECT_EQ(stats->ready + stats->delayed + stats->in_flight + stats->dead, 0) << "all acked";
  }
  return decisions;
}

TEST(CrashWithAcksInStoreTransactionTest, KilledRightAfterACommitNothingIsDeliveredAgain) {
  TempDir dir;
  const std::string file = dir.File("idem.db");
  PublishPayments(file);
  ConsumeUntilKilled(file, DieAt::kAfterSecondCommit);

  auto store = OpenSqliteStore(file, {}, Env::Default());
  ASSERT_TRUE(store.ok());
  ASSERT_EQ(CountEffects(**store), 2 * static_cast<int64_t>(kBatch)) << "two batches committed";

  std::vector<Decision> decisions = ConsumeTheRest(file, **store);
  EXPECT_EQ(decisions.size(), kPayments - 2 * kBatch) << "only the batches never taken are delivered";
  for (const Decision& d : decisions) {
    EXPECT_EQ(d.kind, DecisionKind::kFirst) << d.message_id;
    EXPECT_EQ(d.delivery_count, 1) << d.message_id << " was delivered again after its batch committed";
  }
  EXPECT_EQ(CountEffects(**store), kPayments);
  EXPECT_EQ(Balance(**store, "u1"), kOpening - kPayments * kAmount) << "every payment charged once";
}

TEST(CrashWithAcksInStoreTransactionTest, KilledJustBeforeTheCommitTheBatchComesBackAndIsChargedOnce) {
  TempDir dir;
  const std::string file = dir.File("idem.db");
  PublishPayments(file);
  ConsumeUntilKilled(file, DieAt::kBeforeSecondCommit);

  auto store = OpenSqliteStore(file, {}, Env::Default());
  ASSERT_TRUE(store.ok());
  ASSERT_EQ(CountEffects(**store), static_cast<int64_t>(kBatch)) << "the second batch rolled back";

  std::vector<Decision> decisions = ConsumeTheRest(file, **store);
  int redelivered = 0;
  for (const Decision& d : decisions) {
    EXPECT_EQ(d.kind, DecisionKind::kFirst) << d.message_id;
    redelivered += d.delivery_count > 1;
  }
  EXPECT_EQ(decisions.size(), kPayments - kBatch) << "the rolled-back batch and the rest; nothing lost";
  EXPECT_EQ(redelivered, static_cast<int>(kBatch)) << "the rolled-back batch came back";
  EXPECT_EQ(CountEffects(**store), kPayments);
  EXPECT_EQ(Balance(**store, "u1"), kOpening - kPayments * kAmount) << "every payment charged once";
}

}  // namespace
}  // namespace idem
