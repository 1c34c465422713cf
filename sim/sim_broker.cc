#include "sim/sim_broker.h"

#include <algorithm>

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
  if (model_ == DeliveryModel::kKafka) partitions_.resize(partitions);
}

std::unique_ptr<Source> SimBroker::Connect(int consumer, Incarnation* life) {
  return std::make_unique<SimSession>(this, consumer, life);
}

void SimBroker::Publish(Message m, int64_t delay_ms) { Enqueue(std::move(m), delay_ms, /*to_log=*/true); }

void SimBroker::Enqueue(Message m, int64_t delay_ms, bool to_log) {
  BrokerEntry e;
  e.msg = std::move(m);
  e.visible_at_ms = dice_->env().NowMs() + delay_ms;
  // Kafka's main topic is partitioned by business key (ordering per key); retries
  // go to the retry topic, modelled as a delayed queue.
  if (model_ == DeliveryModel::kKafka && to_log) {
    const std::string& k = e.msg.key.empty() ? e.msg.id : e.msg.key;
    e.partition = static_cast<int>(KeyHash(k) % partitions_.size());
    partitions_[e.partition].log.push_back(entries_.size());
  }
  entries_.push_back(std::move(e));
}

bool SimBroker::Assigned(int partition, int consumer) const {
  return (partition + rebalance_shift_) % consumers_ == consumer;
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
  return m;
}

std::vector<Message> SimBroker::Poll(int consumer, size_t max) {
  const int64_t now = dice_->env().NowMs();
  std::vector<Message> out;
  // Kafka partitions first: read forward from the fetch position.
  for (size_t p = 0; p < partitions_.size() && out.size() < max; ++p) {
    if (!Assigned(static_cast<int>(p), consumer)) continue;
    Partition& part = partitions_[p];
    if (part.paused_until_ms > now) continue;
    while (part.fetch < part.log.size() && out.size() < max) out.push_back(Deliver(part.log[part.fetch++], consumer));
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
  while (p.committed < p.log.size() && entries_[p.log[p.committed]].settled) p.committed++;
}

void SimBroker::SettleOne(int consumer, const Settlement& s) {
  size_t index = 0;
  BrokerEntry* e = Find(s.message->receipt, &index);
  if (!e) {
    refused_acks_++;
    return;
  }
  // A queue ack can be lost on the wire and the message redelivered. Kafka commits
  // are cumulative, so a lost commit request is covered by the next one: no fault there.
  if (e->partition < 0 && dice_->Roll(Fault::kLostAck)) return;
  const int64_t now = dice_->env().NowMs();
  if (e->partition >= 0 && !Assigned(e->partition, consumer)) {
    refused_acks_++;  // the partition moved away: Kafka refuses the commit
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
        // Kafka cannot un-read one record: seek back, re-reading everything after it.
        Partition& p = partitions_[e->partition];
        auto pos = std::find(p.log.begin(), p.log.end(), index) - p.log.begin();
        p.fetch = std::min(p.fetch, static_cast<size_t>(pos));
        p.paused_until_ms = std::max(p.paused_until_ms, now + s.delay_ms);
        e->state = BrokerEntry::State::kReady;
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
  size_t n = settlements.size();
  if (crash_midway && n > 0) n = static_cast<size_t>(dice_->env().Range(0, static_cast<int64_t>(n) - 1));
  for (size_t i = 0; i < n; ++i) SettleOne(consumer, settlements[i]);
}

void SimBroker::Crash(int consumer) {
  const int64_t now = dice_->env().NowMs();
  for (BrokerEntry& e : entries_) {
    if (e.partition >= 0 || e.state != BrokerEntry::State::kLeased || e.consumer != consumer) continue;
    // RabbitMQ requeues a closed connection's unacked messages at once; RocketMQ
    // waits for the consume timeout.
    if (model_ == DeliveryModel::kRabbit) e.lease_until_ms = now;
  }
  for (size_t p = 0; p < partitions_.size(); ++p)
    if (Assigned(static_cast<int>(p), consumer)) partitions_[p].fetch = partitions_[p].committed;
}

void SimBroker::Abandon(int consumer) {
  const int64_t now = dice_->env().NowMs();
  for (BrokerEntry& e : entries_)
    if (e.partition < 0 && e.state == BrokerEntry::State::kLeased && e.consumer == consumer) e.lease_until_ms = now;
  for (size_t p = 0; p < partitions_.size(); ++p)
    if (Assigned(static_cast<int>(p), consumer)) partitions_[p].fetch = partitions_[p].committed;
}

void SimBroker::Rebalance() {
  rebalance_shift_++;
  for (Partition& p : partitions_) p.fetch = p.committed;
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
  for (const Partition& p : partitions_)
    if (p.fetch < p.log.size()) consider(p.paused_until_ms);
  for (const BrokerEntry& e : entries_) {
    if (e.partition >= 0) continue;
    if (e.state == BrokerEntry::State::kReady) consider(e.visible_at_ms);
    if (e.state == BrokerEntry::State::kLeased) consider(e.lease_until_ms);
  }
  return next;
}

}  // namespace idem::sim
