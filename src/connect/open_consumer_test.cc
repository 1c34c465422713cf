// Consumer::Open: the bundle from URLs consumes like a hand-wired pipeline,
// and a URL it cannot open is an error that names it. Consumer::Assemble
// refuses parts it cannot wire.
#include "idem/consumer.h"

#include <gtest/gtest.h>

#include "sim/sim_env.h"
#include "testing/test_util.h"

namespace idem {
namespace {

TEST(ConsumerOpenTest, TheBundleFromUrlsAppliesEachPaymentOnce) {
  testing::TempDir dir;
  sim::SimEnv env(/*seed=*/3);
  ConsumerOptions options;
  options.pipeline.max_linger_ms = 0;
  auto consumer = Consumer::Open({dir.File("queue.db"), dir.File("store.db")}, options, &env);
  ASSERT_TRUE(consumer.ok()) << consumer.status().ToString();
  Consumer& c = **consumer;
  testing::CreateEffectTables(c.store());
  ASSERT_TRUE(c.pipeline().Register(testing::PayHandler()).ok());

  std::vector<Message> copies(2);
  for (Message& m : copies) {
    m.topic = "pay";
    m.payload = R"({"payment_id":"P1","amount":100,"user":"u1"})";
  }
  ASSERT_TRUE(c.broker().publisher().PublishBatch(copies).ok());
  ASSERT_TRUE(c.pipeline().Run(nullptr, /*until_idle=*/true).ok());

  EXPECT_EQ(testing::CountEffects(c.store()), 1) << "two copies of one payment, one effect";
  EXPECT_EQ(c.pipeline().counters().duplicate, 1);
}

TEST(ConsumerOpenTest, AStoreUrlItCannotOpenIsAnErrorThatNamesIt) {
  testing::TempDir dir;
  sim::SimEnv env(/*seed=*/3);
  auto consumer = Consumer::Open({dir.File("queue.db"), "oracle://db/ledger"}, {}, &env);
  ASSERT_FALSE(consumer.ok());
  EXPECT_EQ(consumer.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(consumer.status().message().find("oracle://db/ledger"), std::string::npos)
      << consumer.status().ToString();
}

TEST(ConsumerAssembleTest, PartsWithoutAStoreAreRefused) {
  testing::TempDir dir;
  sim::SimEnv env(/*seed=*/3);
  ConsumerParts parts;
  auto queue = OpenBroker(dir.File("queue.db"), {}, &env);
  ASSERT_TRUE(queue.ok()) << queue.status().ToString();
  parts.broker = std::move(*queue);
  auto consumer = Consumer::Assemble(std::move(parts), {}, &env);
  ASSERT_FALSE(consumer.ok());
  EXPECT_EQ(consumer.status().code(), Status::Code::kInvalidArgument);
}

TEST(ConsumerAssembleTest, ADecoratorThatReturnsNoSourceIsRefused) {
  testing::TempDir dir;
  sim::SimEnv env(/*seed=*/3);
  ConsumerParts parts;
  auto queue = OpenBroker(dir.File("queue.db"), {}, &env);
  auto store = OpenStore(dir.File("store.db"), &env);
  ASSERT_TRUE(queue.ok() && store.ok());
  parts.broker = std::move(*queue);
  parts.store = std::move(*store);
  parts.decorators.push_back([](Source*) -> std::unique_ptr<Source> { return nullptr; });
  auto consumer = Consumer::Assemble(std::move(parts), {}, &env);
  ASSERT_FALSE(consumer.ok());
  EXPECT_EQ(consumer.status().code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace idem
