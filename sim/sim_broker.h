// SimBroker: an in-memory broker with three delivery models, driven by the
// simulator's clock and dice. It is a fake on purpose: its job is to redeliver,
// reorder, lose acks and rebalance so the real pipeline and guard are tested.
//
//   RabbitMQ-like: per-message ack by delivery tag; a consumer's connection loss
//                  requeues its unacked messages at once; an ack after the
//                  consumer timeout is refused and the message redelivered;
//                  retries go to a delay tier (DLX + TTL wait queue); the move
//                  there can be lost, and the original comes back at once.
//   Kafka-like:    partitioned logs keyed by business key, as the Kafka adapter
//                  (src/source/kafka/) consumes them: the owner stores the
//                  highest contiguous settled offset and commits it on a timer,
//                  at revocation and when it leaves (Abandon); a crash or a lost
//                  assignment (a batch that outlives max.poll.interval) commits
//                  nothing, and the next owner reads again from the committed
//                  offset. Rebalances are eager or cooperative (drawn per run);
//                  every receipt carries its partition's generation, so a late
//                  settlement from an earlier assignment is refused. A release
//                  keeps the offset unsettled and the owner hands the record out
//                  again after the delay. Retries follow the adapter's retry
//                  mode (drawn per run): ordered retries stay in place as a
//                  release does, and while a record is out (handed out or
//                  released, not settled) the later records of its key wait
//                  behind it, the other keys flowing; with retry topics a retry
//                  goes to one FIFO retry topic per delay, read only when its
//                  head record is due. Parked records go to the DLT.
//                  docs/brokers.md lists what the model leaves out.
//   RocketMQ-like: per-message ack with a consume timeout; RECONSUME_LATER up to
//                  16 times, then the broker moves the message to %DLQ%.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
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
  int partition = -1;  // Kafka log partition (main or retry topic); -1 = queue semantics (Rabbit, Rocket)
  State state = State::kReady;
  int64_t visible_at_ms = 0;
  int consumer = -1;
  uint64_t token = 0;
  int64_t lease_until_ms = 0;
  int deliveries = 0;
  bool settled = false;  // Kafka: settled by the partition's current owner (its offset may be committed)
  int64_t generation = 0;           // Kafka: the assignment of its partition it was handed out in
  int64_t released_until_ms = -1;   // Kafka: released; its owner hands it out again at this time
  int reconsumes = 0;    // RocketMQ: how often this message went back to the retry queue
  std::string dead_reason;
};

class SimBroker {
 public:
  SimBroker(FaultDice* dice, DeliveryModel model, int consumers, int partitions, int64_t visibility_timeout_ms);

  // How often a Kafka member commits its stored offsets (the adapter's commit_interval_ms).
  static constexpr int64_t kKafkaCommitIntervalMs = 1'000;

  // A producer's publish. Kafka appends to the key's partition log (delay ignored).
  void Publish(Message m, int64_t delay_ms = 0);

  // A consumer process's view of the broker. A dead incarnation neither polls nor
  // settles; the crash point "during ack" fires here, after part of the acks.
  std::unique_ptr<Source> Connect(int consumer, Incarnation* life);

  // The consumer's process died: what it had not settled comes back.
  void Crash(int consumer);
  // The consumer gives back what it holds unsettled (Source::Abandon): ready at
  // once. A Kafka member commits what is settled and leaves the group.
  void Abandon(int consumer);
  // Partitions/queues move between consumers. Kafka: the revoked partitions
  // (all of them when eager) commit what is settled and are read again from there.
  void Rebalance();

  bool Drained() const;
  // The earliest time at which something becomes deliverable (0 if nothing waits).
  int64_t NextEventMs() const;

  const std::vector<BrokerEntry>& entries() const { return entries_; }
  DeliveryModel model() const { return model_; }
  int64_t deliveries() const { return deliveries_; }
  int64_t refused_acks() const { return refused_acks_; }
  bool cooperative() const { return cooperative_; }
  // Kafka: the rebalance protocol (drawn per run otherwise).
  void set_cooperative(bool cooperative) { cooperative_ = cooperative; }
  // Kafka: retries in place holding their key (the adapter's retry_mode "ordered"),
  // or through retry topics (drawn per run otherwise).
  bool ordered_retries() const { return ordered_; }
  void set_ordered_retries(bool ordered) { ordered_ = ordered; }

  // Used by the consumer sessions.
  std::vector<Message> Poll(int consumer, size_t max);
  // Applies settlements; with `crash_midway` only a random prefix is applied.
  void Settle(int consumer, const std::vector<Settlement>& settlements, bool crash_midway);

 private:
  struct Partition {
    std::vector<size_t> log;  // entry indices in offset order
    int64_t retry_delay_ms = 0;  // 0: a main-topic partition; else its retry topic's delay
    size_t stored = 0;        // after the contiguous settled offsets: what the owner commits next
    size_t committed = 0;     // the group's committed offset: where a new owner starts reading
    size_t fetch = 0;         // next offset to hand out
    int64_t generation = 1;   // bumped whenever the partition is read again from `committed`
    int owner = 0;            // the consumer it is assigned to
  };
  void Enqueue(Message m, int64_t delay_ms, bool to_log);
  int KafkaPartition(const Message& m, int64_t retry_delay_ms);
  Message Deliver(size_t index, int consumer);
  bool Assigned(int partition, int consumer) const;
  void PollKafka(int consumer, size_t max, std::vector<Message>& out);
  void PollOrdered(size_t partition, int consumer, size_t max, std::vector<Message>& out);
  void SettleOne(int consumer, const Settlement& s);
  void Advance(Partition& p);
  void Reread(Partition& p);
  void CommitIfDue(int consumer);
  void LoseAssignmentIfOverrun(int consumer);
  BrokerEntry* Find(const Receipt& receipt, size_t* index);

  FaultDice* dice_;
  DeliveryModel model_;
  int consumers_;
  int64_t vt_ms_;
  bool cooperative_ = false;  // Kafka: cooperative-sticky (one partition moves) or eager (all are revoked)
  bool ordered_ = false;      // Kafka: ordered retries (in place, per-key holds) or retry topics
  int eager_rounds_ = 0;
  size_t main_partitions_ = 0;
  std::vector<std::pair<int64_t, size_t>> retry_topics_;  // Kafka: (delay, its first partition)
  std::vector<int64_t> last_poll_ms_;    // Kafka: per consumer, for max.poll.interval
  std::vector<int64_t> last_commit_ms_;  // Kafka: per consumer, for the commit timer
  std::vector<BrokerEntry> entries_;
  std::vector<Partition> partitions_;
  int64_t deliveries_ = 0;
  int64_t refused_acks_ = 0;
};

}  // namespace idem::sim
