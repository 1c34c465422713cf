// The RabbitMQ Broker. See include/idem/rabbitmq.h for the topology and the
// guarantees; this file is the consume → settle cycle and the publishing side.
//
// Two connections: one consumes (basic.qos + basic.consume on channel 1, acks),
// one publishes in confirm mode (channel 1) and runs the console (channel 2).
// Keeping them apart means a publisher blocked by a resource alarm never stalls
// acks, and no confirm frame ever interleaves with deliveries.
//
// Settle, for one batch:
//   1. every kRetry / kPark / delayed kRelease becomes a pending move: a copy
//      for the wait, terminal or hold queue, built from the original delivery;
//   2. all pending moves are published and confirmed;
//   3. the originals of confirmed moves and every kAck are acked (one
//      multiple-ack for the contiguous prefix of this channel's outstanding
//      tags); short kReleases are nacked with requeue.
// A move that cannot be confirmed stays pending, its original unacked (so it
// is safe in the broker), and is tried again by the next Settle or Poll.
#include <amqp.h>
#include <sys/time.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>

#include "idem/rabbitmq.h"
#include "source/rabbitmq/confirmed_publisher.h"
#include "source/rabbitmq/connection.h"
#include "source/rabbitmq/dead_letter_console.h"
#include "source/rabbitmq/dead_letter_id.h"
#include "source/rabbitmq/field_table.h"
#include "source/rabbitmq/message_codec.h"
#include "source/rabbitmq/topology.h"

namespace idem::rabbitmq {
namespace {

constexpr amqp_channel_t kChannel = 1;
constexpr amqp_channel_t kStatsChannel = 2;

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
  std::string receipt;  // of the original delivery
  std::unique_ptr<Outgoing> copy;
  std::string delay_queue;  // wait/hold queue to declare first; empty for the terminal queue
  int64_t delay_ms = 0;
};

class RabbitMqBroker final : public Broker {
 public:
  RabbitMqBroker(const RabbitMqOptions& options, Env* env)
      : opt_(options),
        names_(QueueNames::From(options)),
        env_(env),
        consumer_(options, "consumer of " + options.queue),
        publisher_(options, "publisher for " + options.queue),
        confirms_(&publisher_, env),
        ids_(env) {
    char buf[20];
    std::snprintf(buf, sizeof buf, "%016" PRIx64, env->Random64());
    instance_ = buf;
  }

  Status Open() { return EnsurePublisher(); }

  Result<std::vector<Message>> Poll(size_t max_messages, int64_t max_wait_ms) override;
  Status Settle(const std::vector<Settlement>& settlements) override;
  Status PublishBatch(std::vector<Message>& messages, int64_t delay_ms) override;
  Result<int64_t> ParkRejected(const Message& message, const std::string& reason) override;
  Result<QueueStats> Stats() override;

  Result<std::vector<DeadLetter>> ListDead(size_t limit, int64_t after_id) override {
    IDEM_RETURN_IF_ERROR(EnsurePublisher());
    return Console().List(limit, after_id);
  }
  Result<std::optional<DeadLetter>> GetDead(int64_t id) override {
    IDEM_RETURN_IF_ERROR(EnsurePublisher());
    return Console().Get(id);
  }
  Result<int64_t> ReplayDead(const std::vector<int64_t>& ids, const std::string& actor) override {
    IDEM_RETURN_IF_ERROR(EnsurePublisher());
    return Console().Replay(ids, actor);
  }
  Result<int64_t> PurgeDead(const std::vector<int64_t>& ids, const std::string& actor) override {
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
  // (an idle publisher misses heartbeats and the broker drops it).
  Status Publish(const std::vector<Outgoing*>& batch, const std::vector<std::pair<std::string, int64_t>>& declare);
  bool IsStale(const Delivery& d) const { return d.generation != consumer_.generation() || !consumer_.is_open(); }
  void QueueMove(const std::string& receipt, const Delivery& d, const Settlement& s, int64_t now);
  // Publishes every pending move; appends the receipts to ack on success.
  Status FinishMoves(std::vector<std::string>* acks);
  Status AckAndRequeue(const std::vector<std::string>& acks, const std::vector<std::string>& requeues);
  std::string NewMessageId();

  RabbitMqOptions opt_;
  QueueNames names_;
  Env* env_;
  AmqpConnection consumer_;
  AmqpConnection publisher_;
  ConfirmedPublisher confirms_;
  DeadLetterIds ids_;
  std::string instance_;
  std::set<std::string> declared_;  // delay queues declared on the current publishing connection
  std::map<std::string, std::unique_ptr<Delivery>> in_flight_;  // by receipt
  std::vector<PendingMove> pending_;
};

Status RabbitMqBroker::EnsurePublisher() {
  if (publisher_.is_open()) return Status::OK();
  declared_.clear();
  Status s = publisher_.Open();
  if (s.ok()) s = DeclareCore(publisher_, names_);
  if (s.ok()) s = confirms_.Start();
  if (!s.ok()) publisher_.MarkBroken();
  return s;
}

Status RabbitMqBroker::EnsureConsumer() {
  if (consumer_.is_open()) return Status::OK();
  Status s = consumer_.Open();
  if (s.ok()) s = DeclareCore(consumer_, names_);
  if (s.ok()) {
    amqp_basic_qos(consumer_.raw(), kChannel, 0, static_cast<uint16_t>(opt_.prefetch), 0);
    s = consumer_.Check(amqp_get_rpc_reply(consumer_.raw()), "setting the prefetch (basic.qos)");
  }
  if (s.ok()) {
    amqp_basic_consume(consumer_.raw(), kChannel, StringBytes(names_.main), amqp_empty_bytes, /*no_local=*/0,
                       /*no_ack=*/0, /*exclusive=*/0, amqp_empty_table);
    s = consumer_.Check(amqp_get_rpc_reply(consumer_.raw()), "consuming from queue '" + names_.main + "'");
  }
  if (!s.ok()) consumer_.MarkBroken();
  return s;
}

Status RabbitMqBroker::EnsureDelayQueue(const std::string& queue, int64_t ttl_ms) {
  if (declared_.count(queue)) return Status::OK();
  Status s = DeclareDelayQueue(publisher_, names_, queue, ttl_ms);
  if (!s.ok()) {
    publisher_.MarkBroken();  // a failed declare closed the confirm channel
    return s;
  }
  declared_.insert(queue);
  return Status::OK();
}

Status RabbitMqBroker::Publish(const std::vector<Outgoing*>& batch,
                               const std::vector<std::pair<std::string, int64_t>>& declare) {
  Status s;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool was_open = publisher_.is_open();
    s = EnsurePublisher();
    for (const auto& [queue, ttl] : declare)
      if (s.ok()) s = EnsureDelayQueue(queue, ttl);
    if (s.ok()) s = confirms_.PublishAll(batch);
    // Unroutable: a queue was deleted under us; reconnecting re-declares them all.
    if (!s.ok() && confirms_.last_returned() > 0) publisher_.MarkBroken();
    if (s.ok() || !was_open || publisher_.is_open()) break;
  }
  return s;
}

std::string RabbitMqBroker::NewMessageId() {
  char buf[40];
  std::snprintf(buf, sizeof buf, "m-%016" PRIx64 "%08" PRIx32, env_->Random64(),
                static_cast<uint32_t>(env_->Random64()));
  return buf;
}

Result<std::vector<Message>> RabbitMqBroker::Poll(size_t max_messages, int64_t max_wait_ms) {
  if (!pending_.empty()) {
    // Finish the moves decided earlier before taking more work: while the
    // publisher is down, the pipeline then backs off instead of spinning.
    std::vector<std::string> acks;
    Status moved = FinishMoves(&acks);
    Status acked = AckAndRequeue(acks, {});
    if (!moved.ok()) return moved;
    if (!acked.ok()) return acked;
  }
  IDEM_RETURN_IF_ERROR(EnsureConsumer());
  std::vector<Message> out;
  std::vector<std::string> receipts;
  const int64_t deadline = env_->NowMs() + max_wait_ms;
  Status lost;
  while (out.size() < max_messages) {
    // Wait for the first message; after that take only what has already arrived.
    const int64_t wait_ms = out.empty() ? std::max<int64_t>(deadline - env_->NowMs(), 0) : 0;
    timeval tv{static_cast<time_t>(wait_ms / 1000), static_cast<suseconds_t>((wait_ms % 1000) * 1000)};
    auto d = std::make_unique<Delivery>();
    amqp_maybe_release_buffers(consumer_.raw());
    amqp_rpc_reply_t r = amqp_consume_message(consumer_.raw(), &d->envelope, &tv, 0);
    if (r.reply_type == AMQP_RESPONSE_NORMAL) {
      d->filled = true;
      d->generation = consumer_.generation();
      const amqp_envelope_t& e = d->envelope;
      std::string receipt =
          instance_ + ":" + std::to_string(d->generation) + ":" + std::to_string(e.delivery_tag);
      Message m = MessageFromAmqp(e.message.properties, e.message.body, BytesToString(e.routing_key),
                                  "rmq-" + receipt, names_);
      m.redelivered = e.redelivered != 0;
      const amqp_table_t& h = e.message.properties.headers;
      auto count = (e.message.properties._flags & AMQP_BASIC_HEADERS_FLAG) ? GetInt(h, "x-delivery-count")
                                                                           : std::nullopt;
      m.delivery_count = count ? static_cast<int>(*count) + 1 : (m.redelivered ? 2 : 1);
      m.received_at_ms = env_->NowMs();
      m.receipt = receipt;
      in_flight_[receipt] = std::move(d);
      receipts.push_back(receipt);
      out.push_back(std::move(m));
      continue;
    }
    if (r.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION && r.library_error == AMQP_STATUS_TIMEOUT) break;
    if (r.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION && r.library_error == AMQP_STATUS_UNEXPECTED_STATE) {
      // Something other than a delivery: read it and see whether the channel survived.
      amqp_frame_t frame;
      Status s = consumer_.CheckStatus(amqp_simple_wait_frame(consumer_.raw(), &frame), "reading from RabbitMQ");
      if (s.ok() && frame.frame_type == AMQP_FRAME_METHOD) {
        const amqp_method_number_t id = frame.payload.method.id;
        if (id == AMQP_CHANNEL_CLOSE_METHOD || id == AMQP_CONNECTION_CLOSE_METHOD) {
          s = consumer_.OnCloseMethod(frame, "consuming from '" + names_.main + "'");
        } else if (id == AMQP_BASIC_CANCEL_METHOD) {
          s = Status::Unavailable("RabbitMQ cancelled the consumer of queue '" + names_.main +
                                  "' (deleted?); idem re-declares it and consumes again");
        }
      }
      if (!s.ok()) {
        consumer_.MarkBroken();
        lost = s;
        break;
      }
      continue;
    }
    lost = consumer_.Check(r, "consuming from '" + names_.main + "'");
    consumer_.MarkBroken();
    break;
  }
  if (!lost.ok()) {
    // The broker takes back whatever it delivered on the lost connection; handing
    // these out would only produce work that cannot be acknowledged.
    for (const std::string& receipt : receipts) in_flight_.erase(receipt);
    return lost;
  }
  return out;
}

void RabbitMqBroker::QueueMove(const std::string& receipt, const Delivery& d, const Settlement& s, int64_t now) {
  PendingMove move;
  move.receipt = receipt;
  move.copy = Outgoing::CopyOf(d.envelope.message.properties, d.envelope.message.body);
  const Message& m = *s.message;
  switch (s.kind) {
    case Settlement::Kind::kRetry:
      move.delay_ms = std::max<int64_t>(s.delay_ms, 0);
      move.delay_queue = names_.Wait(move.delay_ms);
      MakeRetryCopy(*move.copy, m, move.delay_queue, s.reason, now);
      break;
    case Settlement::Kind::kRelease:
      move.delay_ms = HoldStepMs(s.delay_ms);
      move.delay_queue = names_.Hold(move.delay_ms);
      MakeHoldCopy(*move.copy, m, move.delay_queue);
      break;
    default:
      MakeDeadCopy(*move.copy, m, names_, s.reason, ids_.Next(), now);
      break;
  }
  pending_.push_back(std::move(move));
}

Status RabbitMqBroker::Settle(const std::vector<Settlement>& settlements) {
  // Resolve every receipt first, so a foreign one fails the call before anything moves.
  std::vector<Delivery*> deliveries;
  for (const Settlement& s : settlements) {
    auto it = s.message ? in_flight_.find(s.message->receipt) : in_flight_.end();
    if (it == in_flight_.end())
      return Status::InvalidArgument("settlement for a message this broker did not hand out, or settled twice");
    deliveries.push_back(it->second.get());
  }
  const int64_t now = env_->NowMs();
  std::vector<std::string> acks, requeues, forget;
  for (size_t i = 0; i < settlements.size(); ++i) {
    const Settlement& s = settlements[i];
    const std::string& receipt = s.message->receipt;
    const Delivery& d = *deliveries[i];
    // A stale delivery came on a connection that is gone: RabbitMQ has already
    // put it back and will deliver it again, and the pipeline decides again then
    // (a copy whose record says FAILED is parked again). Acting on it here would
    // only make a second copy.
    if (IsStale(d)) {
      forget.push_back(receipt);
      continue;
    }
    switch (s.kind) {
      case Settlement::Kind::kAck:
        acks.push_back(receipt);
        break;
      case Settlement::Kind::kRetry:
      case Settlement::Kind::kPark:
        QueueMove(receipt, d, s, now);
        break;
      case Settlement::Kind::kRelease:
        // A short hold is a plain requeue: the pipeline backs off by itself, and a
        // hold queue for every few milliseconds would cost more than it saves.
        if (s.delay_ms >= opt_.release_min_delay_ms) QueueMove(receipt, d, s, now);
        else requeues.push_back(receipt);
        break;
    }
  }
  for (const std::string& receipt : forget) in_flight_.erase(receipt);
  Status moved = FinishMoves(&acks);
  Status acked = AckAndRequeue(acks, requeues);
  if (!moved.ok()) return moved;
  if (!acked.ok()) return acked;
  if (!forget.empty())
    return Status::Unavailable(std::to_string(forget.size()) +
                               " message(s) were delivered on a RabbitMQ connection that has since been lost; "
                               "RabbitMQ delivers them again and the guard absorbs the copies");
  return Status::OK();
}

Status RabbitMqBroker::FinishMoves(std::vector<std::string>* acks) {
  // A move whose original went stale meanwhile is dropped: the broker delivers
  // the original again (see Settle).
  std::erase_if(pending_, [&](const PendingMove& p) {
    if (!IsStale(*in_flight_.at(p.receipt))) return false;
    in_flight_.erase(p.receipt);
    return true;
  });
  if (pending_.empty()) return Status::OK();
  std::vector<Outgoing*> batch;
  std::vector<std::pair<std::string, int64_t>> declare;
  for (PendingMove& p : pending_) {
    batch.push_back(p.copy.get());
    if (!p.delay_queue.empty()) declare.emplace_back(p.delay_queue, p.delay_ms);
  }
  Status s = Publish(batch, declare);
  if (!s.ok())
    return Annotate(s, " (" + std::to_string(pending_.size()) +
                           " retry/terminal move(s) stay pending; their originals stay unacknowledged)");
  for (PendingMove& p : pending_) acks->push_back(p.receipt);
  pending_.clear();
  return Status::OK();
}

Status RabbitMqBroker::AckAndRequeue(const std::vector<std::string>& acks, const std::vector<std::string>& requeues) {
  if (acks.empty() && requeues.empty()) return Status::OK();
  auto forget_all = [&] {
    for (const std::string& r : acks) in_flight_.erase(r);
    for (const std::string& r : requeues) in_flight_.erase(r);
  };
  if (!consumer_.is_open()) {
    forget_all();
    return Status::Unavailable("lost the RabbitMQ consuming connection before acknowledging " +
                               std::to_string(acks.size() + requeues.size()) +
                               " message(s); RabbitMQ delivers them again and the guard absorbs the copies");
  }
  const uint64_t gen = consumer_.generation();
  std::vector<uint64_t> tags, outstanding;
  for (const std::string& r : acks) tags.push_back(in_flight_.at(r)->envelope.delivery_tag);
  for (const auto& [receipt, d] : in_flight_)
    if (d->generation == gen) outstanding.push_back(d->envelope.delivery_tag);
  std::sort(tags.begin(), tags.end());
  std::sort(outstanding.begin(), outstanding.end());
  // The longest run of this channel's oldest outstanding tags that are all being
  // acked now can go as one multiple-ack; anything after a gap goes one by one.
  size_t prefix = 0;
  while (prefix < tags.size() && prefix < outstanding.size() && tags[prefix] == outstanding[prefix]) ++prefix;
  Status s;
  if (prefix >= 2) {
    s = consumer_.CheckStatus(amqp_basic_ack(consumer_.raw(), kChannel, tags[prefix - 1], /*multiple=*/1),
                              "acknowledging messages");
  } else {
    prefix = 0;
  }
  for (size_t i = prefix; i < tags.size() && s.ok(); ++i)
    s = consumer_.CheckStatus(amqp_basic_ack(consumer_.raw(), kChannel, tags[i], 0), "acknowledging a message");
  for (const std::string& r : requeues) {
    if (!s.ok()) break;
    s = consumer_.CheckStatus(
        amqp_basic_nack(consumer_.raw(), kChannel, in_flight_.at(r)->envelope.delivery_tag, 0, /*requeue=*/1),
        "requeueing a message");
  }
  forget_all();
  if (!s.ok())
    return Annotate(s, " (unacknowledged messages come back from RabbitMQ; the guard absorbs the copies)");
  return Status::OK();
}

Status RabbitMqBroker::PublishBatch(std::vector<Message>& messages, int64_t delay_ms) {
  if (messages.empty()) return Status::OK();
  const int64_t now = env_->NowMs();
  const std::string hold = delay_ms > 0 ? names_.Hold(delay_ms) : "";
  std::vector<std::unique_ptr<Outgoing>> owned;
  std::vector<Outgoing*> batch;
  for (Message& m : messages) {
    if (m.id.empty()) m.id = NewMessageId();
    owned.push_back(FromMessage(m, names_, hold, now));
    batch.push_back(owned.back().get());
  }
  std::vector<std::pair<std::string, int64_t>> declare;
  if (!hold.empty()) declare.emplace_back(hold, delay_ms);
  return Publish(batch, declare);
}

Result<int64_t> RabbitMqBroker::ParkRejected(const Message& message, const std::string& reason) {
  const int64_t now = env_->NowMs();
  Message m = message;
  if (m.id.empty()) m.id = NewMessageId();
  const int64_t id = ids_.Next();
  auto copy = FromMessage(m, names_, names_.dead, now);
  MakeDeadCopy(*copy, m, names_, reason, id, now);
  IDEM_RETURN_IF_ERROR(Publish({copy.get()}, {}));
  return id;
}

Result<QueueStats> RabbitMqBroker::Stats() {
  IDEM_RETURN_IF_ERROR(EnsurePublisher());
  IDEM_RETURN_IF_ERROR(publisher_.OpenChannel(kStatsChannel));
  QueueStats st;
  st.in_flight = -1;  // AMQP does not tell; the management API would
  auto count = [&](const std::string& queue, int64_t* into) -> Status {
    auto n = ReadyCount(publisher_, kStatsChannel, queue);
    if (n.ok()) {
      *into += *n;
      return Status::OK();
    }
    // A missing queue is simply empty; its 404 closed the channel, so reopen it.
    if (n.status().IsNotFound() && publisher_.is_open()) return publisher_.OpenChannel(kStatsChannel);
    return n.status();
  };
  st.ready = 0;
  st.delayed = 0;
  Status s = count(names_.main, &st.ready);
  if (s.ok()) s = count(names_.dead, &st.dead);
  std::set<std::string> delay_queues(declared_.begin(), declared_.end());
  for (int64_t ms : opt_.known_wait_ms) delay_queues.insert(names_.Wait(ms));
  for (int64_t ms = HoldStepMs(opt_.release_min_delay_ms); ms <= 500'000; ms = HoldStepMs(ms + 1))
    delay_queues.insert(names_.Hold(ms));
  for (const std::string& q : delay_queues)
    if (s.ok()) s = count(q, &st.delayed);
  if (publisher_.is_open()) (void)publisher_.CloseChannel(kStatsChannel);
  if (!s.ok()) return s;
  if (st.dead > 0) {
    auto oldest = Console().OldestFailedMs();
    if (!oldest.ok()) return oldest.status();
    st.oldest_dead_ms = *oldest;
  }
  return st;
}

}  // namespace
}  // namespace idem::rabbitmq

namespace idem {

Result<std::unique_ptr<Broker>> OpenRabbitMqBroker(const RabbitMqOptions& options, Env* env) {
  auto broker = std::make_unique<rabbitmq::RabbitMqBroker>(options, env);
  IDEM_RETURN_IF_ERROR(broker->Open());
  return std::unique_ptr<Broker>(std::move(broker));
}

Result<std::unique_ptr<Broker>> OpenRabbitMqBroker(const std::string& url, const BrokerOptions& broker_options,
                                                   Env* env) {
  auto options = ParseAmqpUrl(url);
  if (!options.ok()) return options.status();
  if (!broker_options.topics.empty())
    return Status::InvalidArgument(
        "RabbitMQ: a queue receives every topic published to its exchange, so consuming only some topics is not "
        "supported; use one queue per set of topics (queue=NAME in the URL)");
  // The URL's prefetch= wins; otherwise the caller's BrokerOptions bound it.
  if (url.find("prefetch=") == std::string::npos) options->prefetch = std::clamp<size_t>(broker_options.prefetch, 1, 65535);
  return OpenRabbitMqBroker(*options, env);
}

}  // namespace idem
