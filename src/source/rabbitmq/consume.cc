// RabbitMqBroker::Poll: deliveries in. Each becomes a Message whose receipt
// holds the delivery tag and the consuming connection's generation (offset per
// broker object), so a tag from a lost connection is never acked on a new one.
#include <amqp.h>
#include <sys/time.h>

#include <algorithm>

#include "source/rabbitmq/field_table.h"
#include "source/rabbitmq/message_codec.h"
#include "source/rabbitmq/own_copies.h"
#include "source/rabbitmq/rabbitmq_broker.h"

namespace idem::rabbitmq {

Result<std::vector<Message>> RabbitMqBroker::Poll(size_t max_messages, int64_t max_wait_ms) {
  if (!pending_.empty()) {
    // Finish the moves decided earlier before taking more work: while the
    // publisher is down, the pipeline then backs off instead of spinning.
    std::vector<Receipt> acks, requeues;
    Status moved = FinishMoves(&acks, &requeues);
    Status acked = AckAndRequeue(acks, requeues);
    if (!moved.ok()) return moved;
    if (!acked.ok()) return acked;
  }
  IDEM_RETURN_IF_ERROR(EnsureConsumer());
  std::vector<Message> out;
  std::vector<Receipt> receipts;
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
      const Receipt receipt = ReceiptOf(*d);
      Message m = MessageFromAmqp(e.message.properties, e.message.body, BytesToString(e.routing_key),
                                  "rmq-" + instance_ + ":" + std::to_string(d->generation) + ":" +
                                      std::to_string(e.delivery_tag));
      if (!MadeByIdem(e.message.properties, opt_.user)) DisownProducerHeaders(m, BytesToString(e.routing_key));
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
    for (const Receipt& receipt : receipts) in_flight_.erase(receipt);
    return lost;
  }
  return out;
}

}  // namespace idem::rabbitmq
