// RabbitMqBroker: the Broker for amqp:// URLs. See include/idem/rabbitmq.h for
// the topology and the guarantees. Its code is split by concern:
//   rabbitmq_broker.cc  connections, publishing, stats, the console, opening
//   consume.cc          Poll: deliveries in, with receipts that name the connection
//   settle.cc           Settle: confirmed moves first, then (multiple-)acks
//
// Two connections: one consumes (basic.qos + basic.consume on channel 1, acks),
// one publishes in confirm mode (channel 1) and runs the console (channel 2).
// Keeping them apart means a publisher blocked by a resource alarm never stalls
// acks, and no confirm frame ever interleaves with deliveries.
#pragma once

#include <amqp.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "idem/rabbitmq.h"
#include "idem/store_dead_letters.h"
#include "source/rabbitmq/confirmed_publisher.h"
#include "source/rabbitmq/connection.h"
#include "source/rabbitmq/dead_letter_console.h"
#include "source/rabbitmq/dead_letter_id.h"
#include "source/rabbitmq/outgoing.h"
#include "source/rabbitmq/topology.h"

namespace idem::rabbitmq {

inline constexpr amqp_channel_t kChannel = 1;       // consuming / confirm channel
inline constexpr amqp_channel_t kStatsChannel = 2;  // passive declares for Stats

// One delivery handed to the pipeline and not yet settled. The envelope owns
// the original properties and body, which the copies of a move are made from.
struct Delivery {
  amqp_envelope_t envelope{};
  bool filled = false;  // rabbitmq-c frees a half-read envelope itself
  uint64_t generation = 0;
  ~Delivery() {
    if (filled) amqp_destroy_envelope(&envelope);
  }
};

struct PendingMove {
  Receipt receipt;  // of the original delivery
  Settlement::Kind kind = Settlement::Kind::kPark;
  std::unique_ptr<Outgoing> copy;
  // A dead letter's message, reason and attempts, for the store should
  // RabbitMQ refuse the copy for good (ParkInStore).
  Message message;
  std::string reason;
  int attempts = 0;
  std::string delay_queue;  // wait/hold queue to declare first; empty for the terminal queue
  int64_t delay_ms = 0;
  uint64_t held_by = 0;  // ConfirmedPublisher generation holding it unconfirmed; 0 = not sent
};

// One object is the broker and each of its parts: they share the two connections.
class RabbitMqBroker final : public Broker, public Source, public Publisher, public DeadLetters, public ParksInStore {
 public:
  RabbitMqBroker(const RabbitMqOptions& options, Env* env);

  Status Open() { return EnsurePublisher(); }

  Source& source() override { return *this; }
  Publisher& publisher() override { return *this; }
  DeadLetters* dead_letters() override { return this; }
  Result<QueueStats> Stats() override;

  Result<std::vector<Message>> Poll(size_t max_messages, int64_t max_wait_ms) override;
  Status Settle(const std::vector<Settlement>& settlements) override;
  Status Abandon() override;
  Status PublishBatch(std::vector<Message>& messages, int64_t delay_ms) override;
  Result<int64_t> ParkRejected(const Message& message, const std::string& reason) override;
  ParksInStore* parks_in_store() override { return this; }
  void SetStoreDeadLetters(StoreDeadLetterSink* sink) override { store_dead_letters_ = sink; }

  Result<std::vector<DeadLetter>> List(size_t limit, int64_t after_id) override {
    IDEM_RETURN_IF_ERROR(EnsurePublisher());
    return Console().List(limit, after_id);
  }
  Result<std::optional<DeadLetter>> Get(int64_t id) override {
    IDEM_RETURN_IF_ERROR(EnsurePublisher());
    return Console().Get(id);
  }
  Result<int64_t> Replay(const std::vector<int64_t>& ids, const std::string& actor) override {
    IDEM_RETURN_IF_ERROR(EnsurePublisher());
    return Console().Replay(ids, actor);
  }
  Result<int64_t> Purge(const std::vector<int64_t>& ids, const std::string& actor) override {
    IDEM_RETURN_IF_ERROR(EnsurePublisher());
    return Console().Purge(ids, actor);
  }

 private:
  DeadLetterConsole Console() { return DeadLetterConsole(&publisher_, &confirms_, names_, env_); }
  Status EnsurePublisher();
  Status EnsureConsumer();
  Status EnsureDelayQueue(const std::string& queue, int64_t ttl_ms);
  // Declares what `declare` names, publishes `batch` and waits for the confirms;
  // once more on a fresh connection if the first try found the connection dead
  // (an idle publisher misses heartbeats and the broker drops it). With `hold`,
  // confirms that are only slow leave the batch held (ConfirmedPublisher).
  Status Publish(const std::vector<Outgoing*>& batch, const std::vector<std::pair<std::string, int64_t>>& declare,
                 bool hold = false);
  bool IsStale(const Delivery& d) const { return d.generation != consumer_.generation() || !consumer_.is_open(); }
  // The receipt of a delivery: its tag, and its connection's generation offset by
  // this object's own base, so a receipt from another broker object never matches ours.
  Receipt ReceiptOf(const Delivery& d) const {
    return Receipt{static_cast<int64_t>(d.envelope.delivery_tag), receipt_base_ + static_cast<int64_t>(d.generation)};
  }
  // Queues the move of `s`, sized to fit (copy_fit.h). What cannot fit goes to
  // the store and is acked (`acks`), or, when the store cannot take it or it is
  // not a dead letter, back to the queue (`requeues`); `why` says which.
  void QueueMove(const Receipt& receipt, const Delivery& d, const Settlement& s, int64_t now,
                 std::vector<Receipt>* acks, std::vector<Receipt>* requeues, Status* why);
  // A dead letter RabbitMQ cannot take, into the store: OK once it is kept there.
  Status ParkInStore(const Message& m, const std::string& reason, int attempts, const std::string& why);
  // The frame the publishing connection negotiated (idem asks for 131,072 bytes).
  size_t FrameMax();
  // Publishes every pending move; appends the receipts to ack on success, and
  // those to give back when RabbitMQ refused a move for good and the store
  // could not take it instead.
  Status FinishMoves(std::vector<Receipt>* acks, std::vector<Receipt>* requeues);
  // After a refusal that no retry can change: each move alone, and what is still
  // refused goes to the store (dead letters) or back to the queue (the others).
  Status SettleRefusedMoves(std::vector<Receipt>* acks, std::vector<Receipt>* requeues);
  Status AckAndRequeue(const std::vector<Receipt>& acks, const std::vector<Receipt>& requeues);
  std::string NewMessageId();

  RabbitMqOptions opt_;
  QueueNames names_;
  Env* env_;
  AmqpConnection consumer_;
  AmqpConnection publisher_;
  ConfirmedPublisher confirms_;
  DeadLetterIds ids_;
  std::string instance_;    // names this object in fallback message ids
  int64_t receipt_base_ = 0;  // added to connection generations in receipts (ReceiptOf)
  std::set<std::string> declared_;  // delay queues declared on the current publishing connection
  std::map<Receipt, std::unique_ptr<Delivery>> in_flight_;
  std::vector<PendingMove> pending_;
  std::set<Receipt> abandoned_;  // receipts given back by Abandon, not settled since
  StoreDeadLetterSink* store_dead_letters_ = nullptr;  // set by the Pipeline (ParksInStore)
};

}  // namespace idem::rabbitmq
