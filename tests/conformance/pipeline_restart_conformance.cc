// The server crash-restarted while consumers run: nothing lost, nothing
// applied twice. The server is the shared test server, so the executables
// that instantiate this suite run alone (RUN_SERIAL).
#include <cstdlib>

#include "conformance/pipeline_conformance.h"
#include "testing/consumer_group.h"
#include "testing/portable_pay.h"
#include "testing/server_script.h"

namespace idem::testing {
namespace {

TEST_P(PipelineRestartConformance, ServerRestartMidTransactionLosesNothingAndDuplicatesNothing) {
  const PipelineStore& s = GetParam();
  if (ServerScriptUrl(s.server_script) != s.test_url())
    GTEST_SKIP() << "the test URL is not the server " << s.server_script << " manages; not restarting it";
  constexpr int kPayments = 200;
  int64_t total = 0;
  std::vector<Message> messages = PaymentCopies(kPayments, 2, kPayments, &total);
  ASSERT_TRUE(queue_->PublishBatch(messages).ok());

  // The first run of payment P0 waits inside its transaction until the server
  // has restarted, so at least one transaction is certainly cut off mid-way.
  Gate gate;
  const HandlerSpec spec = GatedHandler(PayHandler(), "pay:P0", &gate);
  PipelineOptions o;
  o.max_linger_ms = 0;
  o.batch_size = 10;
  o.unavailable_backoff_min_ms = 10;
  o.unavailable_backoff_max_ms = 200;
  ConsumerGroup group(3, [&](int) {
    ConsumerParts c;
    c.queue = OpenQueue();
    c.store = Connect();
    c.pipeline = std::make_unique<Pipeline>(c.queue.get(), c.store.get(), Env::Default(), o);
    EXPECT_TRUE(c.pipeline->Register(spec).ok());
    return c;
  });
  ASSERT_TRUE(WaitFor([&] { return gate.entered.load(); }, 30'000));
  const std::function<bool()> restarted = s.watch_restart(location_, *store_);
  ASSERT_EQ(std::system((s.server_script + " restart").c_str()), 0);
  gate.open = true;
  ASSERT_TRUE(WaitFor([&] { return QueueSettled(*queue_); }, 90'000)) << "the queue never settled";
  group.Stop();

  EXPECT_TRUE(restarted()) << "the server really restarted";
  EXPECT_GE(group.Sum(&DecisionCounters::commit_failures), 1) << "the gated batch was cut off";
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM effects"), kPayments);
  EXPECT_EQ(Sql("SELECT COUNT(DISTINCT " + EffectKeyColumn(store_->Dialect()) + ") FROM effects"), kPayments);
  EXPECT_EQ(Sql("SELECT balance FROM accounts WHERE owner = 'u1'"), 1000000 - total);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM idem_records WHERE status = 'SUCCEEDED'"), kPayments);
  // Every delivery is applied or a duplicate. A COMMIT that landed while its
  // answer was lost, and whose records could not be re-read while the server
  // was still starting, gives its batch back: the redelivered copies are then
  // duplicates, so `first` may fall short of kPayments by such a batch.
  EXPECT_LE(group.Sum(&DecisionCounters::first), kPayments);
  EXPECT_EQ(group.Sum(&DecisionCounters::first) + group.Sum(&DecisionCounters::duplicate), 2 * kPayments);
  auto stats = queue_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->dead, 0);
}

}  // namespace
}  // namespace idem::testing
