// The outbox chain on RabbitMQ (IDEM_TEST_AMQP_URL, scripts/servers/rabbitmq.sh)
// with a SQLite store: the killed consumer's deliveries come back when its
// connection drops; the relay's second publish keeps the key and message id.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "outbox/chain.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

TEST(OutboxChainRabbitTest, RelayKilledAfterConfirmAndConsumerKilledBeforeAckYieldOneGrantAndNoticePerPayment) {
  const char* base = std::getenv("IDEM_TEST_AMQP_URL");
  if (!base || !*base) GTEST_SKIP() << "IDEM_TEST_AMQP_URL is not set: run scripts/servers/rabbitmq.sh start";
  TempDir dir;
  const std::string run = std::to_string(::getpid());
  ChainEnds ends;
  ends.open_store = [&](Env* env) { return OpenSqliteStore(dir.File("store.db"), {}, env); };
  auto queue = [base, run](const std::string& name) {
    return [url = std::string(base) + "?queue=t.outbox-chain-" + name + "." + run](Env* env) {
      return OpenBroker(url, BrokerOptions{}, env);
    };
  };
  ends.open_pay_broker = queue("pay");
  ends.open_downstream_broker = queue("downstream");
  RunOutboxChain(ends, 20);
}

}  // namespace
}  // namespace idem::testing
