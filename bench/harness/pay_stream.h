// PayStream: the bench's message stream — pay.success events of the payments
// service, with a fixed share of duplicate copies — generated one at a time from
// a seed, so a run of ten million messages holds no more memory than a run of
// ten, and every variant of a comparison sees the same messages in the same order.
//
// Copies model the redeliveries brokers make: each is byte-identical to an event
// published earlier (up to kCopyWindow unique payments back), half under the
// original message id (a broker redelivery), half under a new one (a producer
// resend). A copy carries kCopyHeader so the ceiling variant's oracle can skip
// it without any guard; the pipeline itself never looks at that header.
#pragma once

#include <cstdint>
#include <string>

#include "idem/message.h"

namespace idem::bench {

inline constexpr const char* kCopyHeader = "x-bench-copy";
inline constexpr int64_t kCopyWindow = 5'000;  // a copy repeats one of the last 5,000 payments
inline constexpr int64_t kAccounts = 10'000;   // payments are spread over this many accounts
inline constexpr int64_t kOpeningCents = 1'000'000'000'000;  // no payment ever runs out of money

enum class KeyOrder {
  kSequential,  // PAY0000000000000042: each new key sorts after the last (B-tree appends)
  kRandom,      // PAY9e3779b97f4a7c15: keys scattered over the index (B-tree page splits, cache misses)
};
const char* KeyOrderName(KeyOrder k);

// The business identity of payment number `i`. A pure function of (i, order):
// the seeding code and the stream agree without sharing state.
struct PaymentFacts {
  std::string payment_id, order_no, user_id;
  int64_t amount_cents = 0;
};
PaymentFacts FactsOf(int64_t i, KeyOrder order);
std::string PayloadOf(const PaymentFacts& f);

class PayStream {
 public:
  // Payment numbers start at `first_payment` (those below belong to the history
  // a run may start with). `duplicate_ratio` is the share of messages that are copies.
  PayStream(uint64_t seed, double duplicate_ratio, KeyOrder order, int64_t first_payment);

  Message Next();

  int64_t messages() const { return messages_; }              // handed out so far
  int64_t unique() const { return unique_; }                  // distinct payments among them
  int64_t unique_amount_cents() const { return amount_sum_; }  // their total amount
  int64_t first_payment() const { return first_payment_; }

  // How many distinct payments the first `messages` messages hold (a dry run of
  // the same draws): the seeding code creates exactly that many orders.
  static int64_t UniqueIn(uint64_t seed, double duplicate_ratio, int64_t messages);

 private:
  // One draw per message position decides copy or new, and which payment a copy repeats.
  struct Draw {
    bool copy = false;
    int64_t back = 0;  // a copy repeats payment (unique - 1 - back)
    bool new_id = false;
  };
  static Draw DrawAt(uint64_t seed, double duplicate_ratio, int64_t position, int64_t unique_so_far);

  uint64_t seed_;
  double duplicate_ratio_;
  KeyOrder order_;
  int64_t first_payment_;
  int64_t messages_ = 0, unique_ = 0, amount_sum_ = 0;
};

}  // namespace idem::bench
