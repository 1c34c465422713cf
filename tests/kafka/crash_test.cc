// A consumer killed (SIGKILL) in the middle of its work: its transaction has
// committed, nothing is settled or committed to Kafka. Its session runs out, the
// group moves its partitions to the consumer that is left, which gets the
// copies again; the consumption records absorb them.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kafka/kafka_fixture.h"
#include "testing/die_before_settle.h"
#include "testing/consumer_group.h"

namespace idem::testing {
namespace {

class KafkaCrash : public KafkaPipelineTest {};

TEST_F(KafkaCrash, AConsumerKilledMidBatchLosesNothingAndItsCopiesAreAbsorbed) {
  constexpr int kPayments = 50;
  PublishPayments(0, kPayments);
  const std::string url = Url();
  const std::string store_path = dir_.File("store.db");
  pid_t pid = fork();
  if (pid == 0) {
    // The child opens its own clients (nothing of the parent's librdkafka state
    // is used) and dies in its first Settle.
    auto store = OpenSqliteStore(store_path, {}, Env::Default());
    auto broker = OpenBroker(url, BrokerOptions{}, Env::Default());
    if (!store.ok() || !broker.ok()) _exit(2);
    DieBeforeSettle dying(&(*broker)->source());
    Pipeline pipeline(&dying, store->get(), Env::Default(), Options());
    if (!pipeline.Register(PayHandler()).ok()) _exit(2);
    const int64_t deadline_us = Env::Default()->MonotonicMicros() + 60'000'000;
    while (Env::Default()->MonotonicMicros() < deadline_us) (void)pipeline.RunOnce();
    _exit(3);  // never got a message
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child status " << status;
  const int64_t before = DistinctEffects();
  ASSERT_GT(before, 0) << "the child's transaction committed before it died";

  auto worker = StartWorker();
  ASSERT_NE(worker, nullptr);
  ASSERT_TRUE(WaitUntilConsumed(kPayments)) << DistinctEffects() << " payments took effect";
  const int64_t duplicates = worker->counters().duplicate.load();
  worker.reset();
  EXPECT_EQ(Effects(), kPayments) << "a copy of the dead consumer's batch took effect again";
  EXPECT_GE(duplicates, before) << "the dead consumer's batch should have come back as copies";
}

}  // namespace
}  // namespace idem::testing
