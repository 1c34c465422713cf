// The clean business of a workload: accounts, stock, orders and their stories
// (pay → ship → finish, pay → refund, or pay only), top-ups for users who run
// short, campaign points, repeat purchases — and the oracle of what it must end with.
#include "demo/workload.h"

#include <algorithm>
#include <cstdio>

#include "demo/cause_shaping.h"
#include "payments/events.h"
#include "payments/order_states.h"

namespace idem::demo {

// The payments service's events and seeds, which this file composes throughout.
using payments::Finish;
using payments::OrderSeed;
using payments::PaySuccess;
using payments::PointsGrant;
using payments::Refund;
using payments::Ship;
using payments::SkuSeed;
using payments::ToPayload;
using payments::TopUp;
using payments::kFinished;
using payments::kFlowPay;
using payments::kFlowRefund;
using payments::kFlowTopUp;
using payments::kPaid;
using payments::kRefunded;
using payments::kTopicFinish;
using payments::kTopicPaySuccess;
using payments::kTopicPoints;
using payments::kTopicRefund;
using payments::kTopicShip;
using payments::kTopicTopUp;

namespace {

using detail::OrderEvents;

std::string Id(const char* prefix, int64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s%06lld", prefix, static_cast<long long>(n));
  return buf;
}

class BusinessBuilder {
 public:
  BusinessBuilder(Workload& w, Draw& draw) : w_(w), draw_(draw) {}

  void AddAccount(const std::string& user, int64_t opening) {
    w_.accounts.push_back({user, opening});
    w_.expected.balance_cents[user] = opening;
    projected_[user] = opening;
  }

  void AddSkus(size_t events) {
    const std::pair<const char*, int64_t> catalogue[] = {{"SKU-TEA", 1990},   {"SKU-MUG", 4990},   {"SKU-BOOK", 8900},
                                                         {"SKU-LAMP", 19900}, {"SKU-SHOE", 29900}, {"SKU-BAG", 59900}};
    for (const auto& [sku, price] : catalogue) {
      const int64_t stock = static_cast<int64_t>(events) * 4 + 100;  // never the reason a shipment waits
      w_.skus.push_back({sku, price, stock});
      w_.expected.stock[sku] = stock;
    }
  }

  // One order and its story, starting at `t`. Returns its events.
  OrderEvents AddOrder(const OrderSeed& order, const std::string& payment_id, int64_t t) {
    w_.orders.push_back(order);
    OrderEvents oe;
    const std::string& user = order.user_id;
    const int64_t amount = order.amount_cents;
    // A user who cannot pay gets a top-up 20 s later: the first attempt fails
    // on insufficient balance (retryable) and a retry succeeds.
    if (projected_[user] < amount) {
      const int64_t topup = amount - projected_[user] + draw_.Uniform(1'000, 20'000);
      const std::string id = Id("TU", ++topups_);
      Add(kTopicTopUp, ToPayload(TopUp{id, user, topup}), t + 20'000, EffectKind::kLedger, id, kFlowTopUp);
      projected_[user] += topup;
      w_.expected.balance_cents[user] += topup;
      w_.expected.flows++;
    }
    projected_[user] -= amount;  // refunds are not counted back: the projection stays on the safe side
    oe.pay = Add(kTopicPaySuccess, ToPayload(PaySuccess{payment_id, order.order_no, user, amount}), t,
                 EffectKind::kLedger, payment_id, kFlowPay);
    oe.last = oe.pay;
    w_.expected.balance_cents[user] -= amount;
    w_.expected.flows++;
    w_.expected.points++;   // (payment, PAY)
    w_.expected.notices++;  // PAY_SUCCESS
    std::string final_state = kPaid;

    const int64_t story = draw_.Uniform(0, 99);
    if (story < 55) {
      const int64_t ship_at = t + draw_.Uniform(5'000, 40'000);
      const int64_t finish_at = ship_at + draw_.Uniform(5'000, 40'000);
      oe.ship = Add(kTopicShip, ToPayload(Ship{order.order_no, order.sku, order.quantity}), ship_at,
                    EffectKind::kStockMove, order.order_no, "");
      oe.finish = Add(kTopicFinish, ToPayload(Finish{order.order_no}), finish_at, EffectKind::kFinished,
                      order.order_no, "");
      oe.last = *oe.finish;
      final_state = kFinished;
      w_.expected.stock[order.sku] -= order.quantity;
      w_.expected.stock_moves++;
      w_.expected.notices++;  // SHIPPED
      if (++finished_ % 25 == 0) {
        // Every 25th finished order gets a refund long after it finished:
        // illegal, so it must be parked for a person.
        const std::string rid = Id("RF", ++refunds_);
        const size_t bad = Add(kTopicRefund, ToPayload(Refund{rid, payment_id, order.order_no, user, amount}),
                               finish_at + 1'800'000, EffectKind::kLedger, rid, kFlowRefund);
        w_.events[bad].expect_parked = true;
        w_.events[bad].expect_reason = "illegal transition";
      }
    } else if (story < 75) {
      const std::string rid = Id("RF", ++refunds_);
      oe.refund = Add(kTopicRefund, ToPayload(Refund{rid, payment_id, order.order_no, user, amount}),
                      t + draw_.Uniform(20'000, 90'000), EffectKind::kLedger, rid, kFlowRefund);
      oe.last = *oe.refund;
      final_state = kRefunded;
      w_.expected.balance_cents[user] += amount;
      w_.expected.flows++;
      w_.expected.notices++;  // REFUND
    }
    if (draw_.Chance(0.12)) {
      Add(kTopicPoints, ToPayload(PointsGrant{payment_id, "CAMPAIGN", user, amount / 100 + 10}),
          t + draw_.Uniform(1'000, 10'000), EffectKind::kPoints, payment_id, "CAMPAIGN");
      w_.expected.points++;
    }
    w_.expected.state[order.order_no] = final_state;
    return oe;
  }

  size_t Add(const char* topic, std::string payload, int64_t at, EffectKind effect, std::string key,
             std::string key2) {
    BusinessEvent e;
    e.topic = topic;
    e.payload = std::move(payload);
    e.at_ms = at;
    e.effect = effect;
    e.key = std::move(key);
    e.key2 = std::move(key2);
    w_.events.push_back(std::move(e));
    return w_.events.size() - 1;
  }

 private:
  Workload& w_;
  Draw& draw_;
  std::map<std::string, int64_t> projected_;  // opening − payments + top-ups, in publishing order
  int64_t topups_ = 0, refunds_ = 0, finished_ = 0;
};

}  // namespace

Workload MakeWorkload(Cause cause, const WorkloadOptions& options) {
  Workload w;
  w.cause = cause;
  w.seed = options.seed;
  w.start_ms = kIncidentMorningMs;
  // Each cause draws its own stream from the seed, so scenarios differ but replay.
  Draw draw(options.seed * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(cause) + 1);
  BusinessBuilder b(w, draw);
  const size_t target = std::max<size_t>(options.events, 10);
  b.AddSkus(target);

  std::vector<OrderEvents> orders;
  if (cause == Cause::kIncident) {
    // PaySuccessMessage(orderNo=P20260928001, amount=199.00) for user 10086 at 10:00:01.
    w.incident_payment_id = "P20260928001";
    b.AddAccount("10086", 100'000);
    orders.push_back(b.AddOrder({"P20260928001", "10086", "SKU-LAMP", 1, 19'900}, w.incident_payment_id, 1'000));
  }
  const size_t users = std::max<size_t>(4, target / 5);
  for (size_t u = 1; u <= users; ++u) {
    // One user in ten starts nearly empty and will need a top-up.
    const bool short_of_money = draw.Chance(0.1);
    b.AddAccount(Id("U", static_cast<int64_t>(u)),
                 short_of_money ? draw.Uniform(500, 3'000) : draw.Uniform(30'000, 300'000));
  }

  // A stall or a rebalance costs a visibility timeout (30 s) of simulated time
  // while a second consumer takes over; lighter traffic leaves room for more of them.
  const bool handovers = cause == Cause::kVisibilityTimeout || cause == Cause::kRebalance;
  const int64_t max_gap_ms = handovers ? 6'000 : 400;
  int64_t t = 2'000;
  int64_t n = 0;
  bool have_last = false;
  while (w.events.size() < target) {
    t += draw.Uniform(50, max_gap_ms);
    ++n;
    OrderSeed o;
    o.order_no = Id("O", n);
    if (have_last && draw.Chance(0.08)) {
      // The same user buys the same thing again: a legitimate second payment
      // with the same amount and a new payment id, which must never be blocked.
      const OrderSeed& last = w.orders.back();
      o.user_id = last.user_id;
      o.sku = last.sku;
      o.quantity = last.quantity;
    } else {
      o.user_id = Id("U", draw.Uniform(1, static_cast<int64_t>(users)));
      o.sku = w.skus[static_cast<size_t>(draw.Uniform(0, static_cast<int64_t>(w.skus.size()) - 1))].sku;
      o.quantity = draw.Uniform(1, 3);
    }
    for (const SkuSeed& s : w.skus)
      if (s.sku == o.sku) o.amount_cents = s.price_cents * o.quantity;
    orders.push_back(b.AddOrder(o, Id("PAY", n), t));
    have_last = true;
  }

  detail::ApplyCause(cause, draw, orders, w);

  // First copies, then sort: a resend published at the same millisecond goes after its original.
  std::vector<Publication> extra = std::move(w.publications);
  w.publications.clear();
  for (size_t i = 0; i < w.events.size(); ++i) w.publications.push_back({i, detail::MessageId(i), w.events[i].at_ms});
  w.publications.insert(w.publications.end(), extra.begin(), extra.end());
  std::stable_sort(w.publications.begin(), w.publications.end(),
                   [](const Publication& a, const Publication& b) { return a.at_ms < b.at_ms; });
  return w;
}

}  // namespace idem::demo
