// The guard pipeline on MariaDB: the pipeline conformance suite, and
// deadlocks between consumers. Effects are counted with plain SQL.
#include <gtest/gtest.h>

#include "mysql/my_pipeline_store.h"
#include "testing/opposing_transfers.h"

namespace idem::testing {
namespace {

INSTANTIATE_TEST_SUITE_P(Mariadb, PipelineConformance, ::testing::Values(MysqlPipelineStore()),
                         [](const auto& info) { return info.param.name; });

class MyPipelineTest : public PipelineConformance {};
INSTANTIATE_TEST_SUITE_P(Mariadb, MyPipelineTest, ::testing::Values(MysqlPipelineStore()),
                         [](const auto& info) { return info.param.name; });

// Four consumers move money between the same two accounts in opposite
// directions; the first transfer of each direction locks its source account
// and waits until the other has too, so the next UPDATE closes a cycle and
// InnoDB rolls one transaction back (1213) — all of it, savepoints included.
// The victim's batch is rerun from the start: every transfer applies exactly
// once, at its first attempt, nothing goes to a retry delay or the dead-letter queue.
TEST_P(MyPipelineTest, DeadlocksBetweenConsumersAreRerunNotRetriedOrDeadLettered) {
  constexpr int kTransfers = 4, kConsumers = 4;
  std::vector<Message> messages = OpposingTransfers(kTransfers);
  ASSERT_TRUE(queue_->PublishBatch(messages).ok());
  OneShotBarrier barrier(2);
  PipelineOptions o = Options();
  o.batch_size = 1;
  o.retry.ladder_ms = {50};  // a wrongly retried message would come back at once, and fail the checks below
  ConsumerGroup group(kConsumers, [&](int) {
    ConsumerParts c;
    c.queue = OpenQueue();
    c.store = Connect();
    c.pipeline = std::make_unique<Pipeline>(c.queue.get(), c.store.get(), Env::Default(), o);
    EXPECT_TRUE(
        c.pipeline->Register(TransferHandler(&barrier, "INSERT INTO effects (k, msg_id, amount) VALUES (?, ?, ?)"))
            .ok());
    return c;
  });
  ASSERT_TRUE(WaitFor([&] { return QueueSettled(*queue_); }, 60'000)) << "the queue never settled";
  group.Stop();

  EXPECT_GE(group.Sum(&DecisionCounters::transaction_retries), 1)
      << "no deadlock happened, so this test proved nothing";
  EXPECT_EQ(group.Sum(&DecisionCounters::first), kTransfers);
  EXPECT_EQ(group.Sum(&DecisionCounters::retried), 0) << "a deadlock is not the message's failure";
  EXPECT_EQ(group.Sum(&DecisionCounters::released), 0);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM effects"), kTransfers);
  EXPECT_EQ(Sql("SELECT COUNT(DISTINCT k) FROM effects"), kTransfers);
  EXPECT_EQ(Sql("SELECT balance FROM accounts WHERE owner = 'u1'"), 1000000 - 2 * 7 + 2 * 3);
  EXPECT_EQ(Sql("SELECT balance FROM accounts WHERE owner = 'u2'"), 1000000 + 2 * 7 - 2 * 3);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM idem_records WHERE attempts <> 1 OR status <> 'SUCCEEDED'"), 0);
  auto stats = queue_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->dead + stats->delayed + stats->ready + stats->in_flight, 0);
}

}  // namespace
}  // namespace idem::testing
