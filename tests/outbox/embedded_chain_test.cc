// The outbox chain on the embedded queue and a SQLite store (tests/outbox/chain.h).
#include <gtest/gtest.h>

#include "idem/embedded_queue.h"
#include "outbox/chain.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

TEST(OutboxChainEmbeddedTest, RelayKilledAfterConfirmAndConsumerKilledBeforeAckYieldOneGrantAndNoticePerPayment) {
  TempDir dir;
  ChainEnds ends;
  ends.open_store = [&](Env* env) { return OpenSqliteStore(dir.File("store.db"), {}, env); };
  auto queue = [&](const std::string& file) {
    return [&dir, file](Env* env) -> Result<std::unique_ptr<Broker>> {
      return OpenBroker("queue:" + dir.File(file), BrokerOptions{}, env);
    };
  };
  ends.open_pay_broker = queue("pay.db");
  ends.open_downstream_broker = queue("downstream.db");
  ends.redelivery_after_ms = BrokerOptions{}.visibility_timeout_ms + 1'000;
  RunOutboxChain(ends, 20);
}

}  // namespace
}  // namespace idem::testing
