#include "ops/reconcile/amount.h"

#include <gtest/gtest.h>

#include <limits>

namespace idem::reconcile {
namespace {

TEST(ReconcileAmountTest, ParsesDecimalsExactly) {
  EXPECT_EQ(*ParseAmount("199.00", 2), 19900);
  EXPECT_EQ(*ParseAmount("199", 2), 19900);
  EXPECT_EQ(*ParseAmount("-199.5", 2), -19950);
  EXPECT_EQ(*ParseAmount("+0.01", 2), 1);
  EXPECT_EQ(*ParseAmount(".5", 2), 50);
  EXPECT_EQ(*ParseAmount("7", 0), 7);
  EXPECT_EQ(*ParseAmount("-92233720368547758.08", 2), std::numeric_limits<int64_t>::min());
}

TEST(ReconcileAmountTest, RejectsWhatIsNotAnExactAmount) {
  for (const char* bad : {"", "-", ".", "1.", "1.001", "1,00", "1e3", "12a", "--1", "92233720368547758.08"})
    EXPECT_FALSE(ParseAmount(bad, 2).ok()) << bad;
  EXPECT_NE(ParseAmount("1.001", 2).status().message().find("more than 2 decimals"), std::string::npos);
}

TEST(ReconcileAmountTest, FormatsMinorUnits) {
  EXPECT_EQ(FormatAmount(19900, 2), "199.00");
  EXPECT_EQ(FormatAmount(-5, 2), "-0.05");
  EXPECT_EQ(FormatAmount(0, 2), "0.00");
  EXPECT_EQ(FormatAmount(42, 0), "42");
  EXPECT_EQ(FormatAmount(std::numeric_limits<int64_t>::min(), 2), "-92233720368547758.08");
}

}  // namespace
}  // namespace idem::reconcile
