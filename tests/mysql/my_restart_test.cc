// MariaDB killed (SIGKILL) and started again while consumers run: nothing
// lost, nothing applied twice. The server is the shared one from
// scripts/servers/mariadb.sh, so this executable runs alone (RUN_SERIAL).
#include <gtest/gtest.h>

#include <cstdlib>

#include "idem/embedded_queue.h"
#include "idem/pipeline.h"
#include "mysql/my_test_support.h"
#include "testing/consumer_group.h"
#include "testing/portable_pay.h"
#include "testing/server_script.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

const std::string kScript = std::string(IDEM_SOURCE_DIR) + "/scripts/servers/mariadb.sh";

TEST(MyRestartTest, ServerKilledMidTransactionLosesNothingAndDuplicatesNothing) {
  if (MysqlTestUrl().empty()) GTEST_SKIP() << kNoMysql;
  if (ServerScriptUrl(kScript) != MysqlTestUrl())
    GTEST_SKIP() << "IDEM_TEST_MYSQL_URL is not the server " << kScript << " manages; not restarting it";
  const std::string url = FreshDatabaseUrl();
  auto store = OpenMyStoreOrFail(url);
  ASSERT_NE(store, nullptr);
  CreateMyEffectTables(*store);
  // A MEMORY table loses its rows when the server stops: proof it really restarted.
  ASSERT_TRUE(store->ExecScript("CREATE TABLE server_life (v INT) ENGINE=MEMORY; INSERT INTO server_life VALUES (1)")
                  .ok());
  const std::string db = DatabaseOf(url);
  TempDir dir;
  auto open_queue = [&] {
    auto q = EmbeddedQueue::Open(dir.File("queue.db"), {}, Env::Default());
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    return q.ok() ? std::move(*q) : nullptr;
  };
  auto queue = open_queue();
  ASSERT_NE(queue, nullptr);

  constexpr int kPayments = 200;
  int64_t total = 0;
  std::vector<Message> messages = PaymentCopies(kPayments, 2, kPayments, &total);
  ASSERT_TRUE(queue->PublishBatch(messages).ok());

  // The first run of payment P0 waits inside its transaction until the server
  // has restarted, so at least one transaction is certainly cut off mid-way.
  Gate gate;
  const HandlerSpec spec = GatedHandler(MyPayHandler(), "pay:P0", &gate);
  PipelineOptions o;
  o.max_linger_ms = 0;
  o.batch_size = 10;
  o.unavailable_backoff_min_ms = 10;
  o.unavailable_backoff_max_ms = 200;
  ConsumerGroup group(3, [&](int) {
    ConsumerParts c;
    c.queue = open_queue();
    c.store = OpenMyStoreOrFail(url);
    c.pipeline = std::make_unique<Pipeline>(c.queue.get(), c.store.get(), Env::Default(), o);
    EXPECT_TRUE(c.pipeline->Register(spec).ok());
    return c;
  });
  ASSERT_TRUE(WaitFor([&] { return gate.entered.load(); }, 30'000));
  ASSERT_EQ(std::system((kScript + " restart").c_str()), 0);
  gate.open = true;
  ASSERT_TRUE(WaitFor([&] { return QueueSettled(*queue); }, 90'000)) << "the queue never settled";
  group.Stop();

  EXPECT_EQ(AdminInt("SELECT COUNT(*) FROM server_life", db), 0) << "the server really restarted";
  EXPECT_GE(group.Sum(&DecisionCounters::commit_failures), 1) << "the gated batch was cut off";
  EXPECT_EQ(AdminInt("SELECT COUNT(*) FROM effects", db), kPayments);
  EXPECT_EQ(AdminInt("SELECT COUNT(DISTINCT k) FROM effects", db), kPayments);
  EXPECT_EQ(AdminInt("SELECT balance FROM accounts WHERE owner = 'u1'", db), 1000000 - total);
  EXPECT_EQ(AdminInt("SELECT COUNT(*) FROM idem_records WHERE status = 'SUCCEEDED'", db), kPayments);
  EXPECT_EQ(group.Sum(&DecisionCounters::first), kPayments);
  auto stats = queue->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->dead, 0);
}

}  // namespace
}  // namespace idem::testing
