// The outbox chain with the store on MariaDB (IDEM_TEST_MYSQL_URL,
// scripts/servers/mariadb.sh): the relay claims with FOR UPDATE SKIP LOCKED.
// The brokers are embedded queues.
#include <gtest/gtest.h>

#include "mysql/my_test_support.h"
#include "outbox/chain.h"

namespace idem::testing {
namespace {

TEST(OutboxChainMysqlTest, RelayKilledAfterConfirmAndConsumerKilledBeforeAckYieldOneGrantAndNoticePerPayment) {
  if (MysqlTestUrl().empty()) GTEST_SKIP() << kNoMysql;
  const std::string url = FreshDatabaseUrl();
  ASSERT_FALSE(url.empty());
  TempDir dir;
  ChainEnds ends;
  ends.open_store = [url](Env* env) { return OpenStore(url, env); };
  auto queue = [&](const std::string& file) {
    return [&dir, file](Env* env) { return OpenBroker("queue:" + dir.File(file), BrokerOptions{}, env); };
  };
  ends.open_pay_broker = queue("pay.db");
  ends.open_downstream_broker = queue("downstream.db");
  ends.redelivery_after_ms = BrokerOptions{}.visibility_timeout_ms + 1'000;
  RunOutboxChain(ends, 20);
}

}  // namespace
}  // namespace idem::testing
