#include "ops/reconcile/period.h"

#include <gtest/gtest.h>

namespace idem::reconcile {
namespace {

TEST(ReconcilePeriodTest, ReadsDatesTimesWithZonesAndMilliseconds) {
  EXPECT_EQ(*ParseTimeMs("1970-01-01"), 0);
  EXPECT_EQ(*ParseTimeMs("2026-09-28T02:00:12Z"), 1'790'560'812'000);
  EXPECT_EQ(*ParseTimeMs("2026-09-28T10:00:12+08:00"), 1'790'560'812'000);
  EXPECT_EQ(*ParseTimeMs("2026-09-27T21:00:12.250-05:00"), 1'790'560'812'250);
  EXPECT_EQ(*ParseTimeMs("2024-02-29"), 1'709'164'800'000);
  EXPECT_EQ(*ParseTimeMs("1790560812000"), 1'790'560'812'000);
}

TEST(ReconcilePeriodTest, RefusesTimesWithoutAZoneOrOutOfRange) {
  for (const char* bad : {"", "2026-09-28T10:00:12", "2026-13-01", "2026-09-28T24:00:00Z", "28.09.2026", "2026-09-28Z",
                          "2026-09-28T10:00:12+8", "-5", "2026-09-28T10:00:12.Z"})
    EXPECT_FALSE(ParseTimeMs(bad).ok()) << bad;
  EXPECT_NE(ParseTimeMs("yesterday").status().message().find("2026-09-28T10:00:00+08:00"), std::string::npos);
}

TEST(ReconcilePeriodTest, ContainsIsHalfOpen) {
  const Period p{100, 200};
  EXPECT_TRUE(p.Contains(100));
  EXPECT_TRUE(p.Contains(199));
  EXPECT_FALSE(p.Contains(200));
  EXPECT_FALSE(p.Contains(99));
  EXPECT_TRUE(Period{}.IsAll());
}

}  // namespace
}  // namespace idem::reconcile
