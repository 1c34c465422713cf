// SimBroker: an in-memory broker with three delivery models, driven by the
// simulator's clock and dice. It is a fake on purpose: its job is to redeliver,
// reorder, lose acks and rebalance so the real pipeline and guard are tested.
//
//   RabbitMQ-like: per-message ack by delivery tag; a consumer's connection loss
//                  requeues its unacked messages at once; an ack after the
//                  consumer timeout is refused and the message redelivered;
//                  retries go to a delay tier (DLX + TTL wait queue); the move
//                  there can be lost, and the original comes back at once.
//   Kafka-like:    partitioned logs keyed by business key; the consumer commits
//                  the highest contiguous settled offset; a crash or rebalance
//                  resets fetch positions to the committed offsets, so settled
//                  messages after a gap are consumed again; retry topic and DLT.
//   RocketMQ-like: per-message ack with a consume timeout; RECONSUME_LATER up to
//                  16 times, then the broker moves the message to %DLQ%.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "idem/source.h"
#include "sim/faults.h"
#include "sim/incarnation.h"

namespace idem::sim {

enum class DeliveryModel { kRabbit, kKafka, kRocket };
const char* ModelName(DeliveryModel m);
bool ParseModel(const std::string& name, DeliveryModel* out);

inline constexpr int kRocketMaxReconsume = 16;

struct BrokerEntry {
  enum class State { kReady, kLeased, kDone, kDead };
  Message msg;
  int partition = -1;  // Kafka log partition; -1 = queue semantics (Rabbit, Rocket, Kafka retry topic)
  State state = State::kReady;
  int64_t visible_at_ms = 0;
  int consumer = -1;
  uint64_t token = 0;
  int64_t lease_until_ms = 0;
  int deliveries = 0;
  bool settled = false;  // Kafka: this offset may be committed
  int reconsumes = 0;    // RocketMQ: how often this message went back to the retry queue
  std::string dead_reason;
};

class SimBroker {
 public:
  SimBroker(FaultDice* dice, DeliveryModel model, int consumers, int partitions, int64_t visibility_timeout_ms);

  // A producer's publish. Kafka appends to the key's partition log (delay ignored).
  void Publish(Message m, int64_t delay_ms = 0);

  // A consumer process's view of the broker. A dead incarnation neither polls nor
  // settles; the crash point "during ack" fires here, after part of the acks.
  std::unique_ptr<Source> Connect(int consumer, Incarnation* life);

  // The consumer's process died: what it had not settled comes back.
  void Crash(int consumer);
  // The consumer gives back what it holds unsettled (Source::Abandon): ready at once.
  void Abandon(int consumer);
  // Partitions/queues move between consumers: Kafka resets fetch positions.
  void Rebalance();

  bool Drained() const;
  // The earliest time at which something becomes deliverable (0 if nothing waits).
  int64_t NextEventMs() const;

  const std::vector<BrokerEntry>& entries() const { return entries_; }
  DeliveryModel model() const { return model_; }
  int64_t deliveries() const { return deliveries_; }
  int64_t refused_acks() const { return refused_acks_; }

  // Used by the consumer sessions.
  std::vector<Message> Poll(int consumer, size_t max);
  // Applies settlements; with `crash_midway` only a random prefix is applied.
  void Settle(int consumer, const std::vector<Settlement>& settlements, bool crash_midway);

 private:
  struct Partition {
    std::vector<size_t> log;  // entry indices in offset order
    size_t committed = 0;     // next offset to commit
    size_t fetch = 0;         // next offset to hand out
    int64_t paused_until_ms = 0;  // a consumer seeked back and paused the partition (delayed retry)
  };
  void Enqueue(Message m, int64_t delay_ms, bool to_log);
  Message Deliver(size_t index, int consumer);
  bool Assigned(int partition, int consumer) const;
  void SettleOne(int consumer, const Settlement& s);
  void Advance(Partition& p);
  BrokerEntry* Find(const Receipt& receipt, size_t* index);

  FaultDice* dice_;
  DeliveryModel model_;
  int consumers_;
  int64_t vt_ms_;
  int rebalance_shift_ = 0;
  std::vector<BrokerEntry> entries_;
  std::vector<Partition> partitions_;
  int64_t deliveries_ = 0;
  int64_t refused_acks_ = 0;
};

}  // namespace idem::sim
