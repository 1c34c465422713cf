#include "core/bounded_text.h"

#include <gtest/gtest.h>

#include <string>

namespace idem {
namespace {

TEST(BoundedText, AShortValueIsQuotedWhole) { EXPECT_EQ(QuotedValue("alice"), "\"alice\""); }

TEST(BoundedText, ALongValueIsCutWithItsLength) {
  const std::string q = QuotedValue(std::string(200'000, 'u'));
  EXPECT_EQ(q, "\"" + std::string(kQuotedValueBytes, 'u') + "\xE2\x80\xA6\" (200,000 bytes)");
}

TEST(BoundedText, ACutNeverSplitsAUtf8Sequence) {
  std::string v;
  for (int i = 0; i < 100; ++i) v += "\xC3\xA9";  // é, two bytes each
  const std::string q = QuotedValue(v);
  // 64 bytes hold 32 whole é; the cut lands on their boundary.
  EXPECT_EQ(q.substr(1, 64), v.substr(0, 64));
  EXPECT_EQ(q.substr(65, 3), "\xE2\x80\xA6");
}

TEST(BoundedText, AReasonIsBoundedAndSaysHowLongItWas) {
  EXPECT_EQ(BoundedReason("short"), "short");
  const std::string r = BoundedReason(std::string(1'000'000, 'x'));
  EXPECT_LE(r.size(), kMaxReasonBytes);
  EXPECT_NE(r.find("(1,000,000 bytes in all)"), std::string::npos) << r.substr(r.size() - 40);
  EXPECT_EQ(BoundedReason(std::string(10, 'x'), 5), "xxxxx") << "too small a bound for the length: only the head";
}

TEST(BoundedText, CountsAreGroupedByThousands) {
  EXPECT_EQ(GroupedCount(0), "0");
  EXPECT_EQ(GroupedCount(999), "999");
  EXPECT_EQ(GroupedCount(1000), "1,000");
  EXPECT_EQ(GroupedCount(200000), "200,000");
}


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

TEST(GroupedCount, GroupsThousands) {
  EXPECT_EQ(GroupedCount(0), "0");
  EXPECT_EQ(GroupedCount(999), "999");
  EXPECT_EQ(GroupedCount(1000), "1,000");
  EXPECT_EQ(GroupedCount(1048576), "1,048,576");
}

}  // namespace
}  // namespace idem
