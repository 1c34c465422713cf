#include "harness/pay_stream.h"

#include <cinttypes>
#include <cstdio>

#include "payments/events.h"

namespace idem::bench {
namespace {

// splitmix64's finaliser: a bijection on 64-bit values, so distinct payment
// numbers always give distinct random-looking keys.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::string Id(const char* prefix, int64_t i, KeyOrder order, uint64_t salt) {
  char buf[32];
  if (order == KeyOrder::kSequential)
    std::snprintf(buf, sizeof buf, "%s%016" PRId64, prefix, i);
  else
    std::snprintf(buf, sizeof buf, "%s%016" PRIx64, prefix, Mix(static_cast<uint64_t>(i) ^ salt));
  return buf;
}

}  // namespace

const char* KeyOrderName(KeyOrder k) { return k == KeyOrder::kSequential ? "sequential" : "random"; }

PaymentFacts FactsOf(int64_t i, KeyOrder order) {
  PaymentFacts f;
  f.payment_id = Id("PAY", i, order, 0);
  f.order_no = Id("ORD", i, order, 0x5bd1e995);
  char user[16];
  std::snprintf(user, sizeof user, "U%06" PRId64, i % kAccounts);
  f.user_id = user;
  f.amount_cents = 100 + static_cast<int64_t>(Mix(static_cast<uint64_t>(i) * 31 + 7) % 99'900);
  return f;
}

std::string PayloadOf(const PaymentFacts& f) {
  return payments::ToPayload(payments::PaySuccess{f.payment_id, f.order_no, f.user_id, f.amount_cents});
}

PayStream::PayStream(uint64_t seed, double duplicate_ratio, KeyOrder order, int64_t first_payment)
    : seed_(seed), duplicate_ratio_(duplicate_ratio), order_(order), first_payment_(first_payment) {}

PayStream::Draw PayStream::DrawAt(uint64_t seed, double duplicate_ratio, int64_t position, int64_t unique_so_far) {
  const uint64_t r = Mix(seed * 0x100000001b3ULL + static_cast<uint64_t>(position));
  Draw d;
  // The top 53 bits as a uniform double in [0, 1).
  const double u = static_cast<double>(r >> 11) * (1.0 / 9007199254740992.0);
  d.copy = unique_so_far > 0 && u < duplicate_ratio;
  if (d.copy) {
    const uint64_t r2 = Mix(r);
    const int64_t window = unique_so_far < kCopyWindow ? unique_so_far : kCopyWindow;
    d.back = static_cast<int64_t>(r2 % static_cast<uint64_t>(window));
    d.new_id = (r2 >> 63) != 0;
  }
  return d;
}

int64_t PayStream::UniqueIn(uint64_t seed, double duplicate_ratio, int64_t messages) {
  int64_t unique = 0;
  for (int64_t p = 0; p < messages; ++p)
    if (!DrawAt(seed, duplicate_ratio, p, unique).copy) ++unique;
  return unique;
}

Message PayStream::Next() {
  const Draw d = DrawAt(seed_, duplicate_ratio_, messages_, unique_);
  const int64_t payment = d.copy ? first_payment_ + unique_ - 1 - d.back : first_payment_ + unique_;
  const PaymentFacts f = FactsOf(payment, order_);
  Message m;
  m.topic = payments::kTopicPaySuccess;
  m.id = "m-" + std::to_string(payment);
  if (d.copy) {
    m.headers[kCopyHeader] = "1";
    if (d.new_id) {
      m.id += "-resent-" + std::to_string(messages_);
    } else {
      m.redelivered = true;
      m.delivery_count = 2;
    }
  } else {
    ++unique_;
    amount_sum_ += f.amount_cents;
  }
  m.payload = PayloadOf(f);
  ++messages_;
  return m;
}

}  // namespace idem::bench
