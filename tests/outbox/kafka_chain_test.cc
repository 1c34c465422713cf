// The outbox chain on Kafka (librdkafka's mock cluster) with a SQLite store.
// The mock cluster lives in this test process; the relay and the consumer that
// are killed run in forked children that connect to its bootstrap servers with
// clients of their own, so a SIGKILL ends them and never the cluster. The killed
// consumer's partitions come back once its session times out.
#include <gtest/gtest.h>

#include "kafka/mock_kafka.h"
#include "outbox/chain.h"

namespace idem::testing {
namespace {

TEST(OutboxChainKafkaTest, RelayKilledAfterConfirmAndConsumerKilledBeforeAckYieldOneGrantAndNoticePerPayment) {
  MockKafka& kafka = MockKafka::Get();
  TempDir dir;
  ChainEnds ends;
  ends.open_store = [&](Env* env) { return OpenSqliteStore(dir.File("store.db"), {}, env); };
  const std::string pay = kafka.Url(kafka.FreshTopic(1)), downstream = kafka.Url(kafka.FreshTopic(1));
  ends.open_pay_broker = [pay](Env* env) { return OpenBroker(pay, BrokerOptions{}, env); };
  ends.open_downstream_broker = [downstream](Env* env) { return OpenBroker(downstream, BrokerOptions{}, env); };
  ends.real_time = true;
  ends.poll_wait_ms = 100;
  RunOutboxChain(ends, 20);
}

}  // namespace
}  // namespace idem::testing
