// RabbitMqBroker: connections, the publishing side, stats and opening.
#include "source/rabbitmq/rabbitmq_broker.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "core/reserved_headers.h"
#include "source/rabbitmq/message_codec.h"

namespace idem::rabbitmq {

RabbitMqBroker::RabbitMqBroker(const RabbitMqOptions& options, Env* env)
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
  // Random high bits (kept positive), so receipts from another broker object never match ours.
  receipt_base_ = static_cast<int64_t>(env->Random64() >> 33) << 32;
}

Status RabbitMqBroker::EnsurePublisher() {
  if (publisher_.is_open()) return Status::OK();
  declared_.clear();
  Status s = publisher_.Open();
  if (s.ok()) s = opt_.create_if_missing ? DeclareCore(publisher_, names_) : CheckCoreExists(publisher_, names_);
  if (s.ok()) s = confirms_.Start();
  if (!s.ok()) publisher_.MarkBroken();
  return s;
}

Status RabbitMqBroker::EnsureConsumer() {
  if (consumer_.is_open()) return Status::OK();
  Status s = consumer_.Open();
  if (s.ok()) s = opt_.create_if_missing ? DeclareCore(consumer_, names_) : CheckCoreExists(consumer_, names_);
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
                               const std::vector<std::pair<std::string, int64_t>>& declare, bool hold) {
  Status s;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool was_open = publisher_.is_open();
    s = EnsurePublisher();
    for (const auto& [queue, ttl] : declare)
      if (s.ok()) s = EnsureDelayQueue(queue, ttl);
    if (s.ok()) s = hold ? confirms_.PublishOrHold(batch) : confirms_.PublishAll(batch);
    // Unroutable: a queue was deleted under us; reconnecting re-declares them all.
    if (!s.ok() && confirms_.last_returned() > 0) publisher_.MarkBroken();
    // A lost connection (or a queue deleted under us: reconnecting re-declares
    // it) is worth one more try; a refusal would be sent, and refused, again,
    // with the batch's earlier messages stored twice.
    const bool worth_again = s.IsRetryable() || s.IsNotFound();
    if (s.ok() || !worth_again || !was_open || publisher_.is_open()) break;
  }
  return s;
}

std::string RabbitMqBroker::NewMessageId() {
  char buf[40];
  std::snprintf(buf, sizeof buf, "m-%016" PRIx64 "%08" PRIx32, env_->Random64(),
                static_cast<uint32_t>(env_->Random64()));
  return buf;
}

Status RabbitMqBroker::PublishBatch(std::vector<Message>& messages, int64_t delay_ms) {
  if (messages.empty()) return Status::OK();
  const int64_t now = env_->NowMs();
  const std::string hold = delay_ms > 0 ? names_.Hold(delay_ms) : "";
  std::vector<std::unique_ptr<Outgoing>> owned;
  std::vector<Outgoing*> batch;
  for (Message& m : messages) {
    if (m.id.empty()) m.id = NewMessageId();
    // Sent as idem's own copy (own_copies.h), so a delayed one keeps its
    // topic when the hold queue sends it back; what the caller put in the
    // reserved x-idem-* headers travels renamed.
    Message sent = m;
    DisownReservedHeaders(sent.headers);
    owned.push_back(FromMessage(sent, names_, hold, now));
    owned.back()->user_id = opt_.user;
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
  DisownReservedHeaders(m.headers);  // a rejected line is a producer's message
  const int64_t id = ids_.Next();
  auto copy = FromMessage(m, names_, names_.dead, now);
  copy->user_id = opt_.user;
  MakeDeadCopy(*copy, m, names_, reason, /*attempts=*/0, id, now);
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
  options->create_if_missing = broker_options.create_if_missing;
  return OpenRabbitMqBroker(*options, env);
}

}  // namespace idem
