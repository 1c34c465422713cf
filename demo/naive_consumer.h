// NaiveConsumer: the consumer of incident 001, written out honestly in C++ so
// the demo can show what it does under redelivery. It reads the same queue and
// the same tables as the fixed service, and does what the incident's code did:
//
//   - AUTO ack: a message is acknowledged when the listener returns, and any
//     exception requeues it at once (Spring AMQP's default requeue-on-reject);
//   - no consumption records and no transaction: every statement commits on its own;
//   - `UPDATE order SET status = ?` without a status condition, result unchecked;
//   - the balance read, then written back (read-modify-write);
//   - ledger, points, stock and notice rows inserted with nothing to stop a second one.
//
// It exists to be compared with IdemConsumer. Do not copy it.
#pragma once

#include <memory>

#include "idem/broker.h"
#include "idem/store.h"
#include "demo/simulated_downstream.h"
#include "demo/consumer.h"
#include "demo/faults.h"

namespace idem::demo {

class NaiveConsumer final : public Consumer {
 public:
  NaiveConsumer(std::unique_ptr<Broker> queue, std::unique_ptr<Store> store, Env* env, payments::Downstream* downstream,
                size_t index, size_t prefetch, FaultInjector* faults, DeliveryLog* log)
      : queue_(std::move(queue)),
        store_(std::move(store)),
        env_(env),
        downstream_(downstream),
        index_(index),
        prefetch_(prefetch),
        faults_(faults),
        log_(log) {}

  Result<size_t> Step() override;

 private:
  // The listener method: throws on any failure, as the Java code did.
  void OnMessage(const Message& m);
  void OnPaySuccess(const std::string& payload);
  void OnRefund(const std::string& payload);
  void OnShip(const std::string& payload);
  void OnFinish(const std::string& payload);
  void OnTopUp(const std::string& payload);
  void OnPoints(const std::string& payload);

  // accountService.deduct / credit: read the balance, write it back, insert a flow.
  void MoveMoney(const std::string& user_id, int64_t delta, const std::string& biz_no, const char* type,
                 const std::string& bank_payment_id);
  void SendNotice(const std::string& kind, const std::string& business_id, const std::string& user_id,
                  const std::string& order_no);

  // One statement in its own transaction (auto-commit). Throws on failure.
  int64_t Update(std::string_view sql, const std::vector<Value>& params);
  Rows Select(std::string_view sql, const std::vector<Value>& params);

  std::unique_ptr<Broker> queue_;
  std::unique_ptr<Store> store_;
  Env* env_;
  payments::Downstream* downstream_;
  size_t index_;
  size_t prefetch_;
  FaultInjector* faults_;
  DeliveryLog* log_;
};

}  // namespace idem::demo
