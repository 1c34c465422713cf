#include "idem/retry.h"

#include <gtest/gtest.h>

namespace idem {
namespace {

TEST(RetryPolicyTest, DefaultLadderIsThirtySecondsOneMinuteThenFiveMinutes) {
  RetryPolicy p;
  EXPECT_EQ(p.DelayAfter(1), 30'000);
  EXPECT_EQ(p.DelayAfter(2), 60'000);
  EXPECT_EQ(p.DelayAfter(3), 300'000);
  EXPECT_EQ(p.DelayAfter(9), 300'000);  // the last rung repeats
  EXPECT_EQ(p.max_attempts, 5);
  EXPECT_EQ(p.RetryWindowMs(), 30'000 + 60'000 + 300'000 + 300'000);
  EXPECT_EQ(p.Validate(), "");
}

TEST(RetryPolicyTest, RejectsNonsense) {
  RetryPolicy p;
  p.max_attempts = 0;
  EXPECT_NE(p.Validate(), "");
  p = RetryPolicy{};
  p.ladder_ms.clear();
  EXPECT_NE(p.Validate(), "");
  p = RetryPolicy{};
  p.ladder_ms = {-1};
  EXPECT_NE(p.Validate(), "");
}

}  // namespace
}  // namespace idem
