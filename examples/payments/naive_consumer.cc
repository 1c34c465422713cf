#include "payments/naive_consumer.h"

#include <stdexcept>

#include "payments/events.h"
#include "payments/order_states.h"

namespace idem::payments {
namespace {

template <typename T>
T OrThrow(Result<T> r) {
  if (!r.ok()) throw std::runtime_error(r.status().ToString());
  return std::move(*r);
}

}  // namespace

Result<size_t> NaiveConsumer::Step() {
  auto got = queue_->source().Poll(prefetch_, 0);
  if (!got.ok()) return got.status();
  const std::vector<Message>& msgs = *got;
  for (const Message& m : msgs) log_->Record(index_, m);
  for (size_t i = 0; i < msgs.size(); ++i) {
    const Message& m = msgs[i];
    std::vector<std::string> held;
    for (size_t j = i; j < msgs.size(); ++j) held.push_back(msgs[j].id);
    // The bank call outlives the broker's ack timeout: the broker closes the
    // channel and hands everything still held to another instance, while this
    // one finishes the message in hand. Its ack then goes nowhere.
    const bool stalled = faults_->StallPastVisibility(m);
    if (stalled && faults_->on_stall) faults_->on_stall(index_, held);
    bool ok = true;
    try {
      OnMessage(m);
    } catch (const std::exception&) {
      ok = false;
    }
    if (stalled) return msgs.size();
    if (!ok) {
      // AUTO ack with default-requeue-rejected=true: straight back to the queue.
      IDEM_RETURN_IF_ERROR(queue_->source().Settle({{&m, Settlement::Kind::kRelease, 0, "listener threw"}}));
      continue;
    }
    if (faults_->CrashAfterCommit(m)) return msgs.size();  // died before the ack; the rest of the prefetch too
    if (faults_->RevokeAfter(m)) {
      faults_->PostHandOver(held);  // the channel is gone: this ack and the prefetched rest are lost
      return msgs.size();
    }
    IDEM_RETURN_IF_ERROR(queue_->source().Settle({{&m, Settlement::Kind::kAck, 0, ""}}));
  }
  return msgs.size();
}

void NaiveConsumer::OnMessage(const Message& m) {
  if (m.topic == kTopicPaySuccess) return OnPaySuccess(m.payload);
  if (m.topic == kTopicRefund) return OnRefund(m.payload);
  if (m.topic == kTopicShip) return OnShip(m.payload);
  if (m.topic == kTopicFinish) return OnFinish(m.payload);
  if (m.topic == kTopicTopUp) return OnTopUp(m.payload);
  if (m.topic == kTopicPoints) return OnPoints(m.payload);
  throw std::runtime_error("no listener for topic " + m.topic);
}

// PaySuccessListener.onMessage of the post-mortem, step by step.
void NaiveConsumer::OnPaySuccess(const std::string& payload) {
  PaySuccess ev = OrThrow(ParsePaySuccess(payload));
  // orderService.markPaid: no status condition, return value ignored.
  Update("UPDATE pay_orders SET status = ?, payment_id = ?, updated_at_ms = ? WHERE order_no = ?",
         {std::string(kPaid), ev.payment_id, env_->NowMs(), ev.order_no});
  // accountService.deduct: no unique key, no status check, no deduplication.
  MoveMoney(ev.user_id, -ev.amount_cents, ev.payment_id, kFlowPay, ev.payment_id);
  Update("INSERT INTO pay_points (payment_id, scene, user_id, points, created_at_ms) VALUES (?, ?, ?, ?, ?)",
         {ev.payment_id, std::string(kScenePay), ev.user_id, ev.amount_cents / 100, env_->NowMs()});
  // The non-critical in-app message that threw in the incident.
  SendNotice("PAY_SUCCESS", ev.payment_id, ev.user_id, ev.order_no);
}

void NaiveConsumer::OnRefund(const std::string& payload) {
  Refund ev = OrThrow(ParseRefund(payload));
  Update("UPDATE pay_orders SET status = ?, updated_at_ms = ? WHERE order_no = ?",
         {std::string(kRefunded), env_->NowMs(), ev.order_no});
  MoveMoney(ev.user_id, ev.amount_cents, ev.refund_id, kFlowRefund, "");
  SendNotice("REFUND", ev.refund_id, ev.user_id, ev.order_no);
}

void NaiveConsumer::OnShip(const std::string& payload) {
  Ship ev = OrThrow(ParseShip(payload));
  Update("UPDATE pay_orders SET status = ?, updated_at_ms = ? WHERE order_no = ?",
         {std::string(kShipped), env_->NowMs(), ev.order_no});
  Rows stock = Select("SELECT quantity FROM pay_stock WHERE sku = ?", {ev.sku});
  if (stock.empty()) throw std::runtime_error("no stock row for " + ev.sku);
  Update("UPDATE pay_stock SET quantity = ? WHERE sku = ?", {AsInt(stock[0][0]) - ev.quantity, ev.sku});
  Update("INSERT INTO pay_stock_moves (order_no, sku, quantity, created_at_ms) VALUES (?, ?, ?, ?)",
         {ev.order_no, ev.sku, ev.quantity, env_->NowMs()});
  Rows user = Select("SELECT user_id FROM pay_orders WHERE order_no = ?", {ev.order_no});
  SendNotice("SHIPPED", ev.order_no, user.empty() ? std::string() : AsText(user[0][0]), ev.order_no);
}

void NaiveConsumer::OnFinish(const std::string& payload) {
  Finish ev = OrThrow(ParseFinish(payload));
  Update("UPDATE pay_orders SET status = ?, updated_at_ms = ? WHERE order_no = ?",
         {std::string(kFinished), env_->NowMs(), ev.order_no});
}

void NaiveConsumer::OnTopUp(const std::string& payload) {
  TopUp ev = OrThrow(ParseTopUp(payload));
  MoveMoney(ev.user_id, ev.amount_cents, ev.topup_id, kFlowTopUp, "");
}

void NaiveConsumer::OnPoints(const std::string& payload) {
  PointsGrant ev = OrThrow(ParsePointsGrant(payload));
  Update("INSERT INTO pay_points (payment_id, scene, user_id, points, created_at_ms) VALUES (?, ?, ?, ?, ?)",
         {ev.payment_id, ev.scene, ev.user_id, ev.points, env_->NowMs()});
}

void NaiveConsumer::MoveMoney(const std::string& user_id, int64_t delta, const std::string& biz_no,
                              const char* type, const std::string& bank_payment_id) {
  Rows acc = Select("SELECT balance_cents FROM pay_accounts WHERE user_id = ?", {user_id});
  if (acc.empty()) throw std::runtime_error("no account " + user_id);
  const int64_t balance = AsInt(acc[0][0]);
  // The bank call sits between the read and the write; the incident's took 11 s.
  if (!bank_payment_id.empty()) {
    Status s = downstream_->ConfirmDebit("", bank_payment_id, -delta);
    if (!s.ok()) throw std::runtime_error(s.ToString());
  }
  Update("UPDATE pay_accounts SET balance_cents = ? WHERE user_id = ?", {balance + delta, user_id});
  Update("INSERT INTO pay_account_flows (biz_no, type, user_id, amount_cents, created_at_ms) VALUES (?, ?, ?, ?, ?)",
         {biz_no, std::string(type), user_id, delta, env_->NowMs()});
}

void NaiveConsumer::SendNotice(const std::string& kind, const std::string& business_id, const std::string& user_id,
                               const std::string& order_no) {
  const std::string key = NoticeKey(kind, business_id);
  Update("INSERT INTO pay_notifications (event_key, idempotency_key, order_no, kind, created_at_ms) "
         "VALUES (?, ?, ?, ?, ?)",
         {key, std::string(), order_no, kind, env_->NowMs()});
  Status s = downstream_->SendNotice({"", key, user_id, order_no, kind});
  if (!s.ok()) throw std::runtime_error(s.ToString());
}

int64_t NaiveConsumer::Update(std::string_view sql, const std::vector<Value>& params) {
  auto tx = OrThrow(store_->Begin());
  int64_t n = OrThrow(tx->Exec(sql, params));
  Status s = tx->Commit();
  if (!s.ok()) throw std::runtime_error(s.ToString());
  return n;
}

Rows NaiveConsumer::Select(std::string_view sql, const std::vector<Value>& params) {
  auto tx = OrThrow(store_->Begin());
  Rows rows = OrThrow(tx->Query(sql, params));
  tx->Rollback();
  return rows;
}

}  // namespace idem::payments
