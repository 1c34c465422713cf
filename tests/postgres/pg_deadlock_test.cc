// Real PostgreSQL deadlocks between consumers. Four consumers move money
// between the same two accounts in opposite directions; the first transfer of
// each direction locks its source account and waits until the other has too, so
// the next UPDATE of each closes a cycle and the server must kill one of them.
// The victim's batch is rerun at once: every transfer is applied exactly once,
// at its first attempt, and nothing goes to a retry delay or the dead-letter queue.
#include <gtest/gtest.h>

#include "idem/embedded_queue.h"
#include "idem/pipeline.h"
#include "postgres/pg_test_support.h"
#include "testing/consumer_group.h"
#include "testing/opposing_transfers.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

TEST(PgDeadlock, TheVictimsBatchIsRerunSoEveryTransferAppliesOnceAtItsFirstAttempt) {
  if (PostgresTestUrl().empty()) GTEST_SKIP() << kNoPostgres;
  const std::string url = FreshSchemaUrl();
  ASSERT_FALSE(url.empty());
  auto store = OpenPgStoreOrFail(url);
  ASSERT_NE(store, nullptr);
  CreateEffectTables(*store);
  TempDir dir;
  auto queue = EmbeddedQueue::Open(dir.File("queue.db"), {}, Env::Default());
  ASSERT_TRUE(queue.ok()) << queue.status().ToString();

  constexpr int kTransfers = 4, kConsumers = 4;
  std::vector<Message> messages = OpposingTransfers(kTransfers);
  ASSERT_TRUE((*queue)->PublishBatch(messages).ok());

  // One message per batch: each consumer holds one transfer, so the first
  // transfer of each direction reaches the barrier while the others queue for
  // the row locks behind them.
  OneShotBarrier barrier(2);
  PipelineOptions o;
  o.max_linger_ms = 0;
  o.batch_size = 1;
  o.unavailable_backoff_min_ms = 5;
  o.unavailable_backoff_max_ms = 50;
  o.retry.ladder_ms = {50};  // a wrongly retried message would come back at once, and fail the checks below
  ConsumerGroup group(kConsumers, [&](int) {
    ConsumerParts c;
    auto q = EmbeddedQueue::Open(dir.File("queue.db"), {}, Env::Default());
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    if (q.ok()) c.queue = std::move(*q);
    c.store = OpenPgStoreOrFail(url);
    c.pipeline = std::make_unique<Pipeline>(c.queue.get(), c.store.get(), Env::Default(), o);
    EXPECT_TRUE(
        c.pipeline->Register(TransferHandler(&barrier, "INSERT INTO effects (key, msg_id, amount) VALUES (?, ?, ?)"))
            .ok());
    return c;
  });
  ASSERT_TRUE(WaitFor([&] { return QueueSettled(**queue); }, 60'000)) << "the queue never settled";
  group.Stop();

  EXPECT_GE(group.Sum(&DecisionCounters::transaction_retries), 1)
      << "no deadlock happened, so this test proved nothing";
  EXPECT_EQ(group.Sum(&DecisionCounters::first), kTransfers);
  EXPECT_EQ(group.Sum(&DecisionCounters::retried), 0) << "a deadlock is not the message's failure";
  EXPECT_EQ(group.Sum(&DecisionCounters::released), 0);
  EXPECT_EQ(QueryInt(*store, "SELECT COUNT(*) FROM effects"), kTransfers);
  EXPECT_EQ(QueryInt(*store, "SELECT COUNT(DISTINCT key) FROM effects"), kTransfers);
  EXPECT_EQ(Balance(*store, "u1"), 1000000 - 2 * 7 + 2 * 3);
  EXPECT_EQ(Balance(*store, "u2"), 1000000 + 2 * 7 - 2 * 3);
  EXPECT_EQ(QueryInt(*store, "SELECT COUNT(*) FROM idem_records WHERE status = 'SUCCEEDED' AND attempts = 1"),
            kTransfers);
  EXPECT_EQ(QueryInt(*store, "SELECT COUNT(*) FROM idem_records WHERE attempts > 1"), 0);
  auto stats = (*queue)->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->dead + stats->delayed + stats->ready + stats->in_flight, 0);
}

}  // namespace
}  // namespace idem::testing
