// KafkaHeldPartitions: what a member of a new group holds, so that a caller
// (idem demo) can wait until every member has its share before it publishes.
#include "idem/kafka.h"
#include "kafka/kafka_fixture.h"
#include "testing/consumer_group.h"

namespace idem::testing {
namespace {

TEST_F(KafkaPipelineTest, HeldPartitionsIsZeroUntilAMemberJoinsThenEachMemberHoldsItsShare) {
  auto a = OpenKafka("&static_membership=false");
  auto b = OpenKafka("&static_membership=false");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(KafkaHeldPartitions(*a).ok());
  EXPECT_EQ(*KafkaHeldPartitions(*a), 0u) << "nothing is held before the first Poll joins the group";
  size_t held_a = 0, held_b = 0;
  const bool joined = WaitFor(
      [&] {
        for (Broker* m : {a.get(), b.get()}) {
          auto got = m->source().Poll(1, 20);
          EXPECT_TRUE(got.ok() && got->empty()) << "nothing was published";
        }
        held_a = *KafkaHeldPartitions(*a);
        held_b = *KafkaHeldPartitions(*b);
        return held_a > 0 && held_b > 0;
      },
      60'000);
  ASSERT_TRUE(joined) << "held: " << held_a << " and " << held_b;
  // Two members, topics of 4 partitions each (main and retry topics): the
  // assignor splits every topic evenly.
  EXPECT_EQ(held_a, held_b);
  EXPECT_EQ((held_a + held_b) % partitions_, 0u);
}

TEST(KafkaHeldPartitionsTest, AnotherBrokerIsRefused) {
  TempDir dir;
  auto queue = OpenBroker(dir.path() + "/q.db", BrokerOptions{}, Env::Default());
  ASSERT_TRUE(queue.ok()) << queue.status().ToString();
  auto held = KafkaHeldPartitions(**queue);
  EXPECT_EQ(held.status().code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace idem::testing
