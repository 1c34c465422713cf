// Two consumer processes on one queue file and one store file, with injected
// duplicates (same copy twice, producer resends under new ids). Exactly-once
// effects are checked from the database after both exit.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "idem/embedded_queue.h"
#include "idem/pipeline.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using namespace idem::testing;

// Runs in a forked child: consume until the queue looks empty, write the counters, exit.
[[noreturn]] void ConsumeAndExit(const TempDir& dir, int index) {
  auto store = OpenSqliteStore(dir.File("store.db"), {}, Env::Default());
  auto queue = EmbeddedQueue::Open(dir.File("queue.db"), {}, Env::Default());
  if (!store.ok() || !queue.ok()) _exit(10);
  PipelineOptions o;
  o.batch_size = 7;  // small batches so the two processes interleave
  o.max_linger_ms = 0;
  Pipeline p(queue->get(), store->get(), Env::Default(), o);
  if (!p.Register(PayHandler()).ok()) _exit(11);
  if (!p.Run(nullptr, /*until_idle=*/true).ok()) _exit(12);
  std::ofstream(dir.File("counters-" + std::to_string(index))) << p.counters().first << " "
                                                               << p.counters().duplicate << " "
                                                               << p.counters().parked;
  _exit(0);
}

TEST(TwoConsumerProcessesTest, InjectedDuplicatesApplyExactlyOnce) {
  TempDir dir;
  constexpr int kPayments = 300;
  int64_t expected_total = 0;
  int copies = 0;
  {
    auto store = OpenSqliteStore(dir.File("store.db"), {}, Env::Default());
    ASSERT_TRUE(store.ok());
    CreateEffectTables(**store);
    auto queue = EmbeddedQueue::Open(dir.File("queue.db"), {}, Env::Default());
    ASSERT_TRUE(queue.ok());
    std::vector<Message> batch;
    for (int i = 0; i < kPayments; ++i) {
      Message m;
      m.topic = "pay";
      m.payload = "{\"payment_id\":\"P" + std::to_string(i) + "\",\"amount\":" + std::to_string(i + 1) + "}";
      expected_total += i + 1;
      m.id = "orig-" + std::to_string(i);
      batch.push_back(m);
      if (i % 3 == 0) {  // the same copy again (broker redelivery)
        batch.push_back(m);
        ++copies;
      }
      if (i % 5 == 0) {  // a producer resend under a new id
        m.id = "resend-" + std::to_string(i);
        batch.push_back(m);
        ++copies;
      }
    }
    ASSERT_TRUE((*queue)->PublishBatch(batch).ok());
  }

  pid_t kids[2];
  for (int i = 0; i < 2; ++i) {
    kids[i] = fork();
    ASSERT_GE(kids[i], 0);
    if (kids[i] == 0) ConsumeAndExit(dir, i);
  }
  for (pid_t k : kids) {
    int status = 0;
    ASSERT_EQ(waitpid(k, &status, 0), k);
    ASSERT_TRUE(WIFEXITED(status)) << "consumer died";
    ASSERT_EQ(WEXITSTATUS(status), 0);
  }

  auto store = OpenSqliteStore(dir.File("store.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(CountEffects(**store), kPayments);
  EXPECT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM (SELECT key FROM effects GROUP BY key HAVING COUNT(*) > 1)"), 0);
  EXPECT_EQ(Balance(**store, "u1"), 1000000 - expected_total);
  EXPECT_EQ(QueryInt(**store, "SELECT COUNT(*) FROM idem_records WHERE status = 'SUCCEEDED'"), kPayments);
  auto queue = EmbeddedQueue::Open(dir.File("queue.db"), {}, Env::Default());
  ASSERT_TRUE(queue.ok());
  auto stats = (*queue)->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->ready + stats->delayed + stats->in_flight + stats->dead, 0) << "everything was acked";

  int64_t first = 0, dup = 0, parked = 0;
  for (int i = 0; i < 2; ++i) {
    int64_t f = 0, d = 0, p = 0;
    std::ifstream(dir.File("counters-" + std::to_string(i))) >> f >> d >> p;
    first += f;
    dup += d;
    parked += p;
  }
  EXPECT_EQ(first, kPayments);
  EXPECT_EQ(dup, copies);
  EXPECT_EQ(parked, 0);
}

}  // namespace
}  // namespace idem
