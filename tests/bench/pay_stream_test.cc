// The bench's message stream: deterministic, the asked share of copies, and
// every copy a byte-identical repeat of a payment already published.
#include "harness/pay_stream.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace idem::bench {
namespace {

TEST(PayStream, SameSeedSameMessages) {
  PayStream a(7, 0.3, KeyOrder::kSequential, 0), b(7, 0.3, KeyOrder::kSequential, 0);
  for (int i = 0; i < 1000; ++i) {
    Message x = a.Next(), y = b.Next();
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.payload, y.payload);
    EXPECT_EQ(x.headers, y.headers);
  }
}

TEST(PayStream, CopiesAreTheAskedShareAndRepeatEarlierPayloads) {
  PayStream s(1, 0.3, KeyOrder::kRandom, 500);
  std::set<std::string> published;
  int64_t copies = 0;
  for (int i = 0; i < 50'000; ++i) {
    Message m = s.Next();
    if (m.headers.count(kCopyHeader)) {
      ++copies;
      EXPECT_TRUE(published.count(m.payload)) << "a copy must repeat a payload published before: " << m.payload;
    } else {
      EXPECT_TRUE(published.insert(m.payload).second) << "a new payment must be new: " << m.payload;
    }
  }
  EXPECT_NEAR(static_cast<double>(copies) / 50'000.0, 0.3, 0.01);
  EXPECT_EQ(s.unique(), static_cast<int64_t>(published.size()));
  EXPECT_EQ(s.messages(), 50'000);
  EXPECT_EQ(PayStream::UniqueIn(1, 0.3, 50'000), s.unique());
}

TEST(PayStream, UniqueAmountIsTheSumOfTheNewPayments) {
  PayStream s(3, 0.5, KeyOrder::kSequential, 10);
  int64_t sum = 0;
  for (int i = 0; i < 2000; ++i) {
    Message m = s.Next();
    if (!m.headers.count(kCopyHeader)) sum += FactsOf(10 + s.unique() - 1, KeyOrder::kSequential).amount_cents;
  }
  EXPECT_EQ(s.unique_amount_cents(), sum);
}

TEST(PayStream, NoCopiesWhenTheRatioIsZero) {
  PayStream s(5, 0.0, KeyOrder::kSequential, 0);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(s.Next().headers.count(kCopyHeader), 0u);
  EXPECT_EQ(s.unique(), 1000);
}

TEST(PayStream, KeyOrders) {
  // Sequential ids sort in payment order; random ones are distinct but scattered.
  EXPECT_LT(FactsOf(9, KeyOrder::kSequential).payment_id, FactsOf(10, KeyOrder::kSequential).payment_id);
  std::set<std::string> ids;
  int64_t out_of_order = 0;
  std::string last;
  for (int64_t i = 0; i < 1000; ++i) {
    std::string id = FactsOf(i, KeyOrder::kRandom).payment_id;
    EXPECT_TRUE(ids.insert(id).second);
    if (id < last) ++out_of_order;
    last = id;
  }
  EXPECT_GT(out_of_order, 300);
  // The account of a payment is the same in both orders (accounts are seeded once).
  EXPECT_EQ(FactsOf(12345, KeyOrder::kRandom).user_id, FactsOf(12345, KeyOrder::kSequential).user_id);
}

}  // namespace
}  // namespace idem::bench
