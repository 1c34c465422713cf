#include "demo/cause_shaping.h"

#include <algorithm>
#include <cstdio>

#include "payments/events.h"

namespace idem::demo {

const std::vector<ScenarioInfo>& Scenarios() {
  static const std::vector<ScenarioInfo> all = {
      {Cause::kIncident, "001", "incident: requeue after charge",
       "a notice throws after the charge; AUTO ack requeues the message and a second instance charges again"},
      {Cause::kProducerResend, "A1", "producer resend",
       "the producer resends after a timeout, half with the same message id and half with a new one"},
      {Cause::kCrashBeforeAck, "A2", "crash after commit, before ack",
       "the consumer dies after its commit and before the ack; the broker redelivers"},
      {Cause::kVisibilityTimeout, "A3", "visibility timeout, 2nd consumer",
       "processing outlives the visibility timeout; a second consumer takes over while the first carries on"},
      {Cause::kThrowAfterEffect, "A4", "throw after side effect",
       "a step throws after the charge was written; the whole handler runs again"},
      {Cause::kRebalance, "A5", "rebalance to 2nd consumer",
       "the assignment moves to a second consumer; work done but not acknowledged is consumed again"},
      {Cause::kOutOfOrder, "A6", "out of order, late PAID",
       "events arrive out of order: shipped before paid, and a late PAID after SHIPPED or REFUNDED "
       "(on Kafka through retry topics: an ordered retry would wait for a PAID queued behind it)"},
  };
  return all;
}

const ScenarioInfo& InfoOf(Cause cause) {
  for (const ScenarioInfo& s : Scenarios())
    if (s.cause == cause) return s;
  return Scenarios().front();
}

namespace detail {

std::string MessageId(size_t event) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "m%06zu", event + 1);
  return buf;
}

namespace {

// The notice an event sends, or "" when it sends none.
std::string NoticeOf(const BusinessEvent& e) {
  if (e.expect_parked) return {};
  if (e.topic == payments::kTopicPaySuccess) return payments::NoticeKey("PAY_SUCCESS", e.key);
  if (e.topic == payments::kTopicRefund) return payments::NoticeKey("REFUND", e.key);
  if (e.topic == payments::kTopicShip) return payments::NoticeKey("SHIPPED", e.key);
  return {};
}

// Picks the first copy of each payment event with probability p: the fault
// strikes while money is in hand, where a second run does visible damage.
std::vector<std::string> PickPayments(Draw& draw, const Workload& w, double p) {
  std::vector<std::string> ids;
  for (size_t i = 0; i < w.events.size(); ++i)
    if (w.events[i].topic == payments::kTopicPaySuccess && draw.Chance(p)) ids.push_back(MessageId(i));
  return ids;
}

void ShuffleOrderEvents(Draw& draw, const std::vector<OrderEvents>& orders, Workload& w) {
  for (const OrderEvents& oe : orders) {
    BusinessEvent& pay = w.events[oe.pay];
    const std::optional<size_t> follow = oe.ship ? oe.ship : oe.refund;
    // The payment event is held up somewhere and arrives after the shipment or refund.
    if (follow && draw.Chance(0.35)) pay.at_ms = w.events[*follow].at_ms + draw.Uniform(1'000, 10'000);
    // A late copy of PAID (a resend under a new id) after the order moved on.
    if (draw.Chance(0.25)) {
      const int64_t after = std::max(w.events[oe.last].at_ms, pay.at_ms);
      w.publications.push_back({oe.pay, MessageId(oe.pay) + "-late", after + draw.Uniform(2'000, 20'000)});
    }
  }
}

}  // namespace

void ApplyCause(Cause cause, Draw& draw, const std::vector<OrderEvents>& orders, Workload& w) {
  FaultPlan& f = w.faults;
  switch (cause) {
    case Cause::kIncident:
      // The bank call took 11 s that morning, and the in-app message threw once.
      w.consumers = 2;
      f.downstream.slow_debit_ms[w.incident_payment_id] = 11'000;
      f.downstream.notice_throws_once.insert(payments::NoticeKey("PAY_SUCCESS", w.incident_payment_id));
      break;
    case Cause::kProducerResend:
      for (size_t i = 0; i < w.events.size(); ++i) {
        if (!draw.Chance(0.25)) continue;
        const bool same_id = draw.Chance(0.5);
        w.publications.push_back(
            {i, same_id ? MessageId(i) : MessageId(i) + "-resent", w.events[i].at_ms + draw.Uniform(1'000, 5'000)});
      }
      break;
    case Cause::kCrashBeforeAck:
      for (std::string& id : PickPayments(draw, w, 0.08)) f.strikes[Fault::kCrashAfterCommit].insert(std::move(id));
      break;
    case Cause::kVisibilityTimeout:
      w.consumers = 2;
      // Only consumer 0 stalls, and it receives about half of the payments.
      for (std::string& id : PickPayments(draw, w, 0.12)) f.strikes[Fault::kSlowHandler].insert(std::move(id));
      break;
    case Cause::kThrowAfterEffect:
      for (const BusinessEvent& e : w.events) {
        std::string notice = NoticeOf(e);
        if (!notice.empty() && draw.Chance(0.10)) f.downstream.notice_throws_once.insert(std::move(notice));
      }
      break;
    case Cause::kRebalance:
      w.consumers = 2;
      for (std::string& id : PickPayments(draw, w, 0.12)) f.strikes[Fault::kRebalance].insert(std::move(id));
      break;
    case Cause::kOutOfOrder:
      ShuffleOrderEvents(draw, orders, w);
      break;
  }
}

}  // namespace detail
}  // namespace idem::demo
