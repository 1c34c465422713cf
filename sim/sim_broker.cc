#include "sim/sim_broker.h"

#include <algorithm>
#include <set>

namespace idem::sim {

const char* ModelName(DeliveryModel m) {
  switch (m) {
    case DeliveryModel::kRabbit: return "rabbitmq";
    case DeliveryModel::kKafka: return "kafka";
    case DeliveryModel::kRocket: return "rocketmq";
  }
  return "unknown";
}

bool ParseModel(const std::string& name, DeliveryModel* out) {
  for (DeliveryModel m : {DeliveryModel::kRabbit, DeliveryModel::kKafka, DeliveryModel::kRocket}) {
    if (name == ModelName(m)) {
      *out = m;
      return true;
    }
  }
  return false;
}

namespace {

class SimSession final : public Source {
 public:
  SimSession(SimBroker* broker, int consumer, Incarnation* life) : broker_(broker), consumer_(consumer), life_(life) {}

  Result<std::vector<Message>> Poll(size_t max_messages, int64_t) override {
    if (life_->crashed) return Status::Unavailable("consumer process is down");
    return broker_->Poll(consumer_, max_messages);
  }

  Status Settle(const std::vector<Settlement>& settlements) override {
    if (life_->crashed) return Status::Unavailable("consumer process is down");
    const bool dies = !settlements.empty() && life_->CrashAt(CrashPoint::kDuringAck);
    broker_->Settle(consumer_, settlements, dies);
    return dies ? Status::Unavailable("simulated crash during ack") : Status::OK();
  }

  Status Abandon() override {
    if (life_->crashed) return Status::Unavailable("consumer process is down");
    broker_->Abandon(consumer_);
    return Status::OK();
  }

 private:
  SimBroker* broker_;
  int consumer_;
  Incarnation* life_;
};

uint64_t KeyHash(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a: stable across runs and platforms
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

}  // namespace

SimBroker::SimBroker(FaultDice* dice, DeliveryModel model, int consumers, int partitions,
                     int64_t visibility_timeout_ms)
    : dice_(dice), model_(model), consumers_(consumers), vt_ms_(visibility_timeout_ms) {
  if (model_ != DeliveryModel::kKafka) return;
  main_partitions_ = static_cast<size_t>(partitions);
  partitions_.resize(main_partitions_);
  for (size_t p = 0; p < main_partitions_; ++p) partitions_[p].owner = static_cast<int>(p) % consumers_;
  // The adapter's default is cooperative-sticky; eager (range, roundrobin) is one
  // URL parameter away. Drawn from a fork, so the run's own draws stay where they were.
  cooperative_ = dice_->env().Fork(0x636f6f70).Chance(0.5);
  // The adapter retries in place by default; retry topics are one setting away.
  ordered_ = dice_->env().Fork(0x6f72646572).Chance(0.5);  // "order"
  last_poll_ms_.assign(consumers, dice_->env().NowMs());
  last_commit_ms_.assign(consumers, dice_->env().NowMs());
}

std::unique_ptr<Source> SimBroker::Connect(int consumer, Incarnation* life) {
  return std::make_unique<SimSession>(this, consumer, life);
}

void SimBroker::Publish(Message m, int64_t delay_ms) { Enqueue(std::move(m), delay_ms, /*to_log=*/true); }

void SimBroker::Enqueue(Message m, int64_t delay_ms, bool to_log) {
  BrokerEntry e;
  e.msg = std::move(m);
  e.visible_at_ms = dice_->env().NowMs() + delay_ms;
  // Kafka's main topic is partitioned by business key (ordering per key); a
  // retry goes to the retry topic of its delay, partitioned the same way, and
  // is due at visible_at_ms.
  if (model_ == DeliveryModel::kKafka) {
    e.partition = KafkaPartition(e.msg, to_log ? 0 : std::max<int64_t>(1, delay_ms));
    partitions_[e.partition].log.push_back(entries_.size());
  }
  entries_.push_back(std::move(e));
}

// The partition of `m` in the main topic (retry_delay_ms 0) or in the retry
// topic of that delay, created on first use with as many partitions as the main
// topic. The adapter picks the retry topic of the shortest configured delay at
// least as long; the pipeline asks for the rungs of its ladder, so one topic
// per distinct delay is the same thing.
int SimBroker::KafkaPartition(const Message& m, int64_t retry_delay_ms) {
  const std::string& k = m.key.empty() ? m.id : m.key;
  const size_t offset = static_cast<size_t>(KeyHash(k) % main_partitions_);
  if (retry_delay_ms == 0) return static_cast<int>(offset);
  for (const auto& [delay, first] : retry_topics_)
    if (delay == retry_delay_ms) return static_cast<int>(first + offset);
  const size_t first = partitions_.size();
  retry_topics_.emplace_back(retry_delay_ms, first);
  partitions_.resize(first + main_partitions_);
  for (size_t i = first; i < partitions_.size(); ++i) {
    partitions_[i].retry_delay_ms = retry_delay_ms;
    partitions_[i].owner = static_cast<int>(i) % consumers_;
  }
  return static_cast<int>(first + offset);
}

bool SimBroker::Assigned(int partition, int consumer) const {
  return partitions_[partition].owner == consumer;
}

Message SimBroker::Deliver(size_t index, int consumer) {
  BrokerEntry& e = entries_[index];
  e.state = BrokerEntry::State::kLeased;
  e.consumer = consumer;
  e.token = dice_->env().Random64() | 1;
  e.lease_until_ms = dice_->env().NowMs() + vt_ms_;
  e.deliveries++;
  deliveries_++;
  Message m = e.msg;
  m.delivery_count = e.deliveries;
  m.redelivered = e.deliveries > 1;
  m.received_at_ms = dice_->env().NowMs();
  m.receipt = Receipt{static_cast<int64_t>(index), static_cast<int64_t>(e.token)};
  if (e.partition >= 0) {
    e.generation = partitions_[e.partition].generation;
    e.released_until_ms = -1;
  }
  return m;
}

// A Kafka member's poll: first the records it released whose delay is over,
// then forward from each assigned partition's fetch position. A retry topic's
// partition is read only while its head record is due (the adapter pauses it
// until then), so it is FIFO: a record waits behind an earlier one due later.
void SimBroker::PollKafka(int consumer, size_t max, std::vector<Message>& out) {
  const int64_t now = dice_->env().NowMs();
  last_poll_ms_[consumer] = now;
  CommitIfDue(consumer);
  for (size_t p = 0; p < partitions_.size() && out.size() < max; ++p) {
    if (!Assigned(static_cast<int>(p), consumer)) continue;
    const Partition& part = partitions_[p];
    if (ordered_ && part.retry_delay_ms == 0) {
      PollOrdered(p, consumer, max, out);
      continue;
    }
    for (size_t o = part.committed; o < part.fetch && out.size() < max; ++o) {
      const BrokerEntry& e = entries_[part.log[o]];
      if (!e.settled && e.released_until_ms >= 0 && e.released_until_ms <= now) out.push_back(Deliver(part.log[o], consumer));
    }
  }
  for (size_t p = 0; p < partitions_.size() && out.size() < max; ++p) {
    if (!Assigned(static_cast<int>(p), consumer)) continue;
    Partition& part = partitions_[p];
    if (ordered_ && part.retry_delay_ms == 0) continue;
    while (part.fetch < part.log.size() && out.size() < max) {
      if (part.retry_delay_ms > 0 && entries_[part.log[part.fetch]].visible_at_ms > now) break;
      out.push_back(Deliver(part.log[part.fetch++], consumer));
    }
  }
}

// Ordered retries (the adapter's KeyHolds): from the committed offset on, the
// first unsettled record of each key is the one out; it is handed out if it was
// not yet in this assignment, or again once its release or retry delay is over.
// Every later record of that key waits, whatever the other keys do.
void SimBroker::PollOrdered(size_t partition, int consumer, size_t max, std::vector<Message>& out) {
  const int64_t now = dice_->env().NowMs();
  Partition& part = partitions_[partition];
  std::set<std::string> out_keys;
  for (size_t o = part.committed; o < part.log.size() && out.size() < max; ++o) {
    const BrokerEntry& e = entries_[part.log[o]];
    // A keyless record has no key order: it holds nothing (as in the adapter).
    if (e.settled || (!e.msg.key.empty() && !out_keys.insert(e.msg.key).second)) continue;
    const bool handed = e.generation == part.generation;
    if (!handed || (e.released_until_ms >= 0 && e.released_until_ms <= now)) {
      out.push_back(Deliver(part.log[o], consumer));
      part.fetch = std::max(part.fetch, o + 1);
    }
  }
}

std::vector<Message> SimBroker::Poll(int consumer, size_t max) {
  const int64_t now = dice_->env().NowMs();
  std::vector<Message> out;
  if (model_ == DeliveryModel::kKafka) {
    PollKafka(consumer, max, out);
    return out;
  }
  // Queue semantics: ready, or leased past the visibility timeout.
  std::vector<size_t> candidates;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const BrokerEntry& e = entries_[i];
    if (e.partition >= 0) continue;
    const bool ready = e.state == BrokerEntry::State::kReady && e.visible_at_ms <= now;
    const bool expired = e.state == BrokerEntry::State::kLeased && e.lease_until_ms <= now;
    if (ready || expired) candidates.push_back(i);
  }
  if (candidates.size() > 1 && dice_->Roll(Fault::kOutOfOrder)) {
    for (size_t i = candidates.size() - 1; i > 0; --i)
      std::swap(candidates[i], candidates[dice_->env().Random64() % (i + 1)]);
  }
  for (size_t i : candidates) {
    if (out.size() >= max) break;
    out.push_back(Deliver(i, consumer));
  }
  return out;
}

BrokerEntry* SimBroker::Find(const Receipt& receipt, size_t* index) {
  if (receipt.sequence < 0 || static_cast<size_t>(receipt.sequence) >= entries_.size()) return nullptr;
  const size_t i = static_cast<size_t>(receipt.sequence);
  BrokerEntry& e = entries_[i];
  if (e.token != static_cast<uint64_t>(receipt.generation)) return nullptr;  // handed to someone else since
  *index = i;
  return &e;
}

void SimBroker::Advance(Partition& p) {
  while (p.stored < p.log.size() && entries_[p.log[p.stored]].settled) p.stored++;
}

// The partition is read again from its committed offset (a new owner, or the
// same member after a crash, a lost assignment or leaving the group): what was
// settled past the commit is not known any more and will be handed out again;
// receipts of the old generation are refused.
void SimBroker::Reread(Partition& p) {
  p.generation++;
  p.fetch = p.committed;
  p.stored = p.committed;
  for (size_t o = p.committed; o < p.log.size(); ++o) {
    BrokerEntry& e = entries_[p.log[o]];
    e.settled = false;
    e.released_until_ms = -1;
  }
}

// The commit timer of one member: every kKafkaCommitIntervalMs it commits the
// stored offsets of its partitions. A failed commit is covered by the next one.
void SimBroker::CommitIfDue(int consumer) {
  const int64_t now = dice_->env().NowMs();
  if (now - last_commit_ms_[consumer] < kKafkaCommitIntervalMs) return;
  last_commit_ms_[consumer] = now;
  if (dice_->Roll(Fault::kLostAck)) return;
  for (size_t p = 0; p < partitions_.size(); ++p)
    if (Assigned(static_cast<int>(p), consumer)) partitions_[p].committed = partitions_[p].stored;
}

// A member whose batch outlived max.poll.interval (the visibility timeout here)
// was put out of the group while it worked: its assignment is lost, nothing of
// it is committed, and its settlements carry a stale generation.
void SimBroker::LoseAssignmentIfOverrun(int consumer) {
  if (dice_->env().NowMs() - last_poll_ms_[consumer] <= vt_ms_) return;
  for (size_t p = 0; p < partitions_.size(); ++p)
    if (Assigned(static_cast<int>(p), consumer)) Reread(partitions_[p]);
}

void SimBroker::SettleOne(int consumer, const Settlement& s) {
  size_t index = 0;
  BrokerEntry* e = Find(s.message->receipt, &index);
  if (!e) {
    refused_acks_++;
    return;
  }
  // A queue ack can be lost on the wire and the message redelivered. Kafka commits
  // are cumulative, so a lost commit request is covered by the next one (CommitIfDue).
  if (e->partition < 0 && dice_->Roll(Fault::kLostAck)) return;
  const int64_t now = dice_->env().NowMs();
  if (e->partition >= 0 && (!Assigned(e->partition, consumer) || e->generation != partitions_[e->partition].generation)) {
    refused_acks_++;  // the partition moved away or was read again: the adapter ignores a stale receipt
    return;
  }
  if (e->partition < 0) {
    // A queue refuses a settlement after the consumer timeout (RabbitMQ closes the
    // channel; RocketMQ has already scheduled a redelivery).
    if (e->state != BrokerEntry::State::kLeased || e->consumer != consumer || e->lease_until_ms <= now) {
      refused_acks_++;
      return;
    }
  }
  // `e` may dangle once a copy is appended (vector growth): finish with it first.
  std::string dead_reason;
  int reconsumes = 0;
  int64_t retry_delay = -1;
  switch (s.kind) {
    case Settlement::Kind::kAck:
      break;
    case Settlement::Kind::kRetry:
      if (e->partition >= 0 && ordered_) {
        // In place: unsettled, its key held, handed out again after the delay.
        e->state = BrokerEntry::State::kReady;
        e->released_until_ms = now + std::max<int64_t>(0, s.delay_ms);
        return;
      }
      if (model_ == DeliveryModel::kRabbit && dice_->Roll(Fault::kRetryMoveLost)) {
        // The consumer committed the failed attempt (its record says when the
        // retry is due), then the move to the delay tier was lost: the publish to
        // the wait queue failed or the process died before acking the original,
        // and RabbitMQ requeues the unacked original at once, long before it is due.
        e->state = BrokerEntry::State::kReady;
        e->visible_at_ms = now;
        e->consumer = -1;
        return;
      }
      // RocketMQ counts reconsumes itself (broker-side, apart from idem's record).
      if (model_ == DeliveryModel::kRocket && e->reconsumes + 1 >= kRocketMaxReconsume) {
        dead_reason = "%DLQ%: reconsumed " + std::to_string(kRocketMaxReconsume) + " times; last: " + s.reason;
      } else {
        reconsumes = e->reconsumes + 1;
        retry_delay = s.delay_ms;
      }
      break;
    case Settlement::Kind::kPark:
      dead_reason = s.reason;
      break;
    case Settlement::Kind::kRelease:
      if (e->partition >= 0) {
        // The offset stays unsettled (nothing is committed past it) and the owner
        // hands the record out again after the delay, reading on meanwhile.
        e->state = BrokerEntry::State::kReady;
        e->released_until_ms = now + std::max<int64_t>(0, s.delay_ms);
        return;
      }
      e->state = BrokerEntry::State::kReady;
      e->visible_at_ms = now + s.delay_ms;
      e->consumer = -1;
      return;
  }
  e->state = BrokerEntry::State::kDone;
  e->settled = true;
  if (e->partition >= 0) Advance(partitions_[e->partition]);
  Message copy = e->msg;
  copy.receipt = Receipt{};
  if (retry_delay >= 0) {
    Enqueue(std::move(copy), retry_delay, /*to_log=*/false);
    entries_.back().reconsumes = reconsumes;
  } else if (!dead_reason.empty() || s.kind == Settlement::Kind::kPark) {
    // The terminal queue (DLQ, %DLQ%, dead-letter topic) holds a copy of its own,
    // which later redeliveries of the original cannot touch.
    BrokerEntry dead;
    dead.msg = std::move(copy);
    dead.state = BrokerEntry::State::kDead;
    dead.dead_reason = dead_reason;
    entries_.push_back(std::move(dead));
  }
}

void SimBroker::Settle(int consumer, const std::vector<Settlement>& settlements, bool crash_midway) {
  if (model_ == DeliveryModel::kKafka) LoseAssignmentIfOverrun(consumer);
  size_t n = settlements.size();
  if (crash_midway && n > 0) n = static_cast<size_t>(dice_->env().Range(0, static_cast<int64_t>(n) - 1));
  for (size_t i = 0; i < n; ++i) SettleOne(consumer, settlements[i]);
  if (model_ == DeliveryModel::kKafka && !crash_midway) CommitIfDue(consumer);
}

void SimBroker::Crash(int consumer) {
  const int64_t now = dice_->env().NowMs();
  for (BrokerEntry& e : entries_) {
    if (e.partition >= 0 || e.state != BrokerEntry::State::kLeased || e.consumer != consumer) continue;
    // RabbitMQ requeues a closed connection's unacked messages at once; RocketMQ
    // waits for the consume timeout.
    if (model_ == DeliveryModel::kRabbit) e.lease_until_ms = now;
  }
  // Kafka: nothing is committed; whoever reads the partitions next starts at the committed offsets.
  for (size_t p = 0; p < partitions_.size(); ++p)
    if (Assigned(static_cast<int>(p), consumer)) Reread(partitions_[p]);
  if (!last_poll_ms_.empty()) last_poll_ms_[consumer] = now;
}

void SimBroker::Abandon(int consumer) {
  const int64_t now = dice_->env().NowMs();
  for (BrokerEntry& e : entries_)
    if (e.partition < 0 && e.state == BrokerEntry::State::kLeased && e.consumer == consumer) e.lease_until_ms = now;
  // Kafka: the member commits what is settled and leaves; its partitions are read again from there.
  for (size_t p = 0; p < partitions_.size(); ++p) {
    if (!Assigned(static_cast<int>(p), consumer)) continue;
    partitions_[p].committed = partitions_[p].stored;
    Reread(partitions_[p]);
  }
}

void SimBroker::Rebalance() {
  // Kafka: a revoked partition's owner commits what is settled at revocation
  // (a member whose assignment was lost has nothing stored past the commit).
  // Eager revokes every partition and deals them out again; cooperative-sticky
  // revokes only the partition that changes owner, the others read on.
  auto revoke = [&](Partition& p, int owner) {
    p.committed = p.stored;
    Reread(p);
    p.owner = owner;
  };
  if (cooperative_ && !partitions_.empty() && consumers_ > 1) {
    Partition& moved = partitions_[static_cast<size_t>(dice_->env().Range(0, static_cast<int64_t>(partitions_.size()) - 1))];
    revoke(moved, (moved.owner + 1) % consumers_);
  } else if (!cooperative_) {
    ++eager_rounds_;
    for (size_t p = 0; p < partitions_.size(); ++p) revoke(partitions_[p], static_cast<int>(p + eager_rounds_) % consumers_);
  }
  if (model_ != DeliveryModel::kKafka) {
    // A queue moving to another node: unacked deliveries are redelivered.
    const int64_t now = dice_->env().NowMs();
    for (BrokerEntry& e : entries_)
      if (e.state == BrokerEntry::State::kLeased) e.lease_until_ms = now;
  }
}

bool SimBroker::Drained() const {
  for (const Partition& p : partitions_)
    if (p.committed < p.log.size()) return false;
  for (const BrokerEntry& e : entries_)
    if (e.partition < 0 && (e.state == BrokerEntry::State::kReady || e.state == BrokerEntry::State::kLeased))
      return false;
  return true;
}

int64_t SimBroker::NextEventMs() const {
  int64_t next = 0;
  auto consider = [&](int64_t t) {
    if (next == 0 || t < next) next = t;
  };
  for (const Partition& p : partitions_) {
    if (p.retry_delay_ms > 0 && p.fetch < p.log.size()) consider(entries_[p.log[p.fetch]].visible_at_ms);
    for (size_t o = p.committed; o < p.fetch; ++o)
      if (entries_[p.log[o]].released_until_ms >= 0) consider(entries_[p.log[o]].released_until_ms);
    if (p.stored > p.committed) consider(last_commit_ms_[p.owner] + kKafkaCommitIntervalMs);
  }
  for (const BrokerEntry& e : entries_) {
    if (e.partition >= 0) continue;
    if (e.state == BrokerEntry::State::kReady) consider(e.visible_at_ms);
    if (e.state == BrokerEntry::State::kLeased) consider(e.lease_until_ms);
  }
  return next;
}

}  // namespace idem::sim
