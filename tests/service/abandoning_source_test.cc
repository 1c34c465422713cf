// AbandoningSource, the decorator `idem run` polls through, hides none of the
// broker's capabilities: with the embedded queue in the store's own file, the
// pipeline writes the batch's acks in the store's transaction through it, and
// no ack is left for Settle.
#include "service/abandoning_source.h"

#include <gtest/gtest.h>

#include "idem/consumer.h"
#include "idem/embedded_queue.h"
#include "idem/store.h"
#include "sim/sim_env.h"
#include "testing/test_util.h"

namespace idem::service {
namespace {

// Passes everything through and counts the acks that reach Settle.
class AcksThroughSettle final : public ForwardingSource {
 public:
  AcksThroughSettle(Source* inner, int* acks) : ForwardingSource(inner), acks_(acks) {}
  Status Settle(const std::vector<Settlement>& settlements) override {
    for (const Settlement& s : settlements) *acks_ += s.kind == Settlement::Kind::kAck;
    return inner().Settle(settlements);
  }

 private:
  int* acks_;
};

TEST(AbandoningSourceTest, ThePipelineAcksInTheStoresTransactionThroughIt) {
  testing::TempDir dir;
  sim::SimEnv env(/*seed=*/5);
  const std::string file = dir.File("idem.db");
  ConsumerParts parts;
  auto store = OpenSqliteStore(file, {}, &env);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  testing::CreateEffectTables(**store);
  parts.store = std::move(*store);
  auto queue = EmbeddedQueue::Open(file, {}, &env);
  ASSERT_TRUE(queue.ok()) << queue.status().ToString();
  parts.broker = std::move(*queue);
  int acks_through_settle = 0;
  Control control;
  AbandoningSource* abandoning = nullptr;
  parts.decorators.push_back([&](Source* below) -> std::unique_ptr<Source> {
    return std::make_unique<AcksThroughSettle>(below, &acks_through_settle);
  });
  parts.decorators.push_back([&](Source* below) -> std::unique_ptr<Source> {
    auto s = std::make_unique<AbandoningSource>(below, &control);
    abandoning = s.get();
    return s;
  });
  ConsumerOptions options;
  options.pipeline.max_linger_ms = 0;
  auto consumer = Consumer::Assemble(std::move(parts), options, &env);
  ASSERT_TRUE(consumer.ok()) << consumer.status().ToString();
  Consumer& c = **consumer;
  ASSERT_EQ(&c.source(), abandoning) << "the pipeline polls the top decorator";
  EXPECT_NE(c.source().settles_in_store_transaction(), nullptr);
  ASSERT_TRUE(c.pipeline().Register(testing::PayHandler()).ok());

  std::vector<Message> payments(3);
  for (size_t i = 0; i < payments.size(); ++i) {
    payments[i].topic = "pay";
    payments[i].payload = R"({"payment_id":"P)" + std::to_string(i) + R"(","amount":100,"user":"u1"})";
  }
  ASSERT_TRUE(c.broker().publisher().PublishBatch(payments).ok());
  BatchReport r = c.pipeline().RunOnce();
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();

  EXPECT_EQ(r.first, 3u);
  EXPECT_EQ(testing::CountEffects(c.store()), 3);
  EXPECT_EQ(acks_through_settle, 0) << "the acks went to Settle after the commit, not into the store's transaction";
  auto stats = c.broker().Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->ready + stats->in_flight, 0) << "every applied message is acknowledged";
}

}  // namespace
}  // namespace idem::service
