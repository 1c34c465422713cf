#include "core/bounded_quote.h"

#include <gtest/gtest.h>

namespace idem {
namespace {

TEST(BoundedQuote, ShortTextIsQuotedWhole) { EXPECT_EQ(BoundedQuote("pay"), "'pay'"); }

TEST(BoundedQuote, LongTextKeepsAPrefixAndSaysItsLength) {
  const std::string topic(65536, 't');
  const std::string q = BoundedQuote(topic);
  EXPECT_EQ(q, "'" + std::string(64, 't') + "…' (65,536 bytes)");
}

TEST(BoundedQuote, NeverSplitsACharacter) {
  std::string text(63, 'a');
  for (int i = 0; i < 10; ++i) text += "é";  // two bytes each: the 64th byte is inside one
  const std::string q = BoundedQuote(text);
  EXPECT_EQ(q.substr(0, 64), "'" + std::string(63, 'a')) << q;
  EXPECT_EQ(q.substr(64, 4), "…'") << "the cut backs off to the start of the split character: " << q;
}

TEST(GroupedDigits, GroupsThousands) {
  EXPECT_EQ(GroupedDigits(0), "0");
  EXPECT_EQ(GroupedDigits(999), "999");
  EXPECT_EQ(GroupedDigits(1000), "1,000");
  EXPECT_EQ(GroupedDigits(1048576), "1,048,576");
}

}  // namespace
}  // namespace idem
