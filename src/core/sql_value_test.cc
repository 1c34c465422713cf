#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "idem/sql.h"

namespace idem {
namespace {

// A REAL in an integer column (written by another tool) must not turn into an
// arbitrary count: out of range, it reads as the fallback.
TEST(SqlValueTest, AsIntOfADoubleOutsideInt64IsTheFallback) {
  EXPECT_EQ(AsInt(Value{12.0}), 12);
  EXPECT_EQ(AsInt(Value{-3.9}), -3);
  EXPECT_EQ(AsInt(Value{9e223}, -1), -1);
  EXPECT_EQ(AsInt(Value{-9.3e18}, -1), -1);
  EXPECT_EQ(AsInt(Value{9223372036854775808.0}, -1), -1);
  EXPECT_EQ(AsInt(Value{std::numeric_limits<double>::quiet_NaN()}, -1), -1);
  EXPECT_EQ(AsInt(Value{std::numeric_limits<double>::infinity()}, -1), -1);
}

}  // namespace
}  // namespace idem
