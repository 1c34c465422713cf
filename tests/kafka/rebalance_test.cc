// A second consumer joins the group mid-run: partitions move between members
// (eager and cooperative-sticky), and every payment takes effect exactly once.
#include "kafka/kafka_fixture.h"
#include "testing/consumer_group.h"

namespace idem::testing {
namespace {

class KafkaRebalance : public KafkaPipelineTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(KafkaRebalance, ASecondConsumerJoiningMidRunChangesNothingInTheLedger) {
  const std::string assignor = std::string("&assignor=") + GetParam();
  constexpr int kPayments = 200;
  PublishPayments(0, kPayments, /*copies=*/2);  // producers resend: every payment twice
  auto first = StartWorker(assignor);
  ASSERT_NE(first, nullptr);
  ASSERT_TRUE(WaitFor([&] { return DistinctEffects() >= 20; }, 60'000)) << "the first consumer never got going";
  auto second = StartWorker(assignor);
  ASSERT_NE(second, nullptr);
  PublishPayments(kPayments, kPayments, /*copies=*/2);
  ASSERT_TRUE(WaitUntilConsumed(2 * kPayments)) << DistinctEffects() << " payments took effect";
  first.reset();
  second.reset();

  EXPECT_EQ(Effects(), 2 * kPayments) << "a payment took effect twice";
  EXPECT_EQ(DistinctEffects(), 2 * kPayments);
  int64_t expected = 0;
  for (int i = 0; i < 2 * kPayments; ++i) expected += i + 1;
  EXPECT_EQ(Balance(*store_, "u1"), 1'000'000 - expected);
}

INSTANTIATE_TEST_SUITE_P(Assignors, KafkaRebalance, ::testing::Values("cooperative-sticky", "range"),
                         [](const auto& info) { return std::string(info.param) == "range" ? "eager" : "cooperative"; });

}  // namespace
}  // namespace idem::testing
