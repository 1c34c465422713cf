#include "source/rabbitmq/confirmed_publisher.h"

#include <amqp_framing.h>
#include <sys/time.h>

namespace idem::rabbitmq {

Status ConfirmedPublisher::Start() {
  amqp_confirm_select(conn_->raw(), 1);
  next_seq_ = 0;  // sequence numbers restart with every channel
  return conn_->Check(amqp_get_rpc_reply(conn_->raw()), "enabling publisher confirms");
}

Status ConfirmedPublisher::PublishAll(const std::vector<Outgoing*>& batch) {
  last_returned_ = 0;
  if (batch.empty()) return Status::OK();
  if (!conn_->is_open()) return Status::Unavailable("the RabbitMQ publishing connection is closed");
  const uint64_t first = next_seq_ + 1;
  for (Outgoing* o : batch) {
    amqp_basic_properties_t props = o->Properties();
    int rc = amqp_basic_publish(conn_->raw(), 1, StringBytes(o->exchange), StringBytes(o->routing_key),
                                /*mandatory=*/1, /*immediate=*/0, &props, StringBytes(o->body));
    IDEM_RETURN_IF_ERROR(conn_->CheckStatus(rc, "publishing to '" + o->exchange + "'/'" + o->routing_key + "'"));
    ++next_seq_;
  }
  Status s = AwaitConfirms(first, next_seq_);
  amqp_maybe_release_buffers(conn_->raw());
  return s;
}

// Confirms may come singly or as a multiple ack covering every tag up to one,
// and not necessarily in order; a returned message's basic.return arrives before
// its basic.ack.
Status ConfirmedPublisher::AwaitConfirms(uint64_t first, uint64_t last) {
  const int64_t deadline_us = env_->MonotonicMicros() + conn_->options().rpc_timeout_ms * 1000;
  std::vector<bool> settled(last - first + 1, false);
  uint64_t open = settled.size(), nacked = 0;
  std::string returned_to;
  auto mark = [&](uint64_t tag, bool multiple, bool nack) {
    const uint64_t lo = multiple ? first : tag;
    for (uint64_t t = std::max(lo, first); t <= std::min(tag, last); ++t) {
      if (settled[t - first]) continue;
      settled[t - first] = true;
      --open;
      if (nack) ++nacked;
    }
  };
  while (open > 0) {
    const int64_t left = deadline_us - env_->MonotonicMicros();
    if (left <= 0) {
      conn_->MarkBroken();  // the channel's confirm state is unknown now
      return Status::Unavailable("RabbitMQ did not confirm " + std::to_string(open) + " published message(s) within " +
                                 std::to_string(conn_->options().rpc_timeout_ms) +
                                 " ms (is a resource alarm blocking publishers?); they will be published again");
    }
    timeval tv{static_cast<time_t>(left / 1'000'000), static_cast<suseconds_t>(left % 1'000'000)};
    amqp_frame_t frame;
    int rc = amqp_simple_wait_frame_noblock(conn_->raw(), &frame, &tv);
    if (rc == AMQP_STATUS_TIMEOUT) continue;
    IDEM_RETURN_IF_ERROR(conn_->CheckStatus(rc, "waiting for publisher confirms"));
    if (frame.frame_type != AMQP_FRAME_METHOD) continue;
    const amqp_method_t& m = frame.payload.method;
    switch (m.id) {
      case AMQP_BASIC_ACK_METHOD: {
        auto* ack = static_cast<amqp_basic_ack_t*>(m.decoded);
        mark(ack->delivery_tag, ack->multiple, false);
        break;
      }
      case AMQP_BASIC_NACK_METHOD: {
        auto* nack = static_cast<amqp_basic_nack_t*>(m.decoded);
        mark(nack->delivery_tag, nack->multiple, true);
        break;
      }
      case AMQP_BASIC_RETURN_METHOD: {
        auto* ret = static_cast<amqp_basic_return_t*>(m.decoded);
        returned_to = BytesToString(ret->exchange) + "'/'" + BytesToString(ret->routing_key);
        ++last_returned_;
        // The returned content follows; read it so the next frame is a method again.
        amqp_message_t msg;
        amqp_rpc_reply_t r = amqp_read_message(conn_->raw(), frame.channel, &msg, 0);
        IDEM_RETURN_IF_ERROR(conn_->Check(r, "reading a returned message", frame.channel));
        amqp_destroy_message(&msg);
        break;
      }
      case AMQP_CHANNEL_CLOSE_METHOD:
      case AMQP_CONNECTION_CLOSE_METHOD: {
        Status s = conn_->OnCloseMethod(frame, "waiting for publisher confirms");
        conn_->MarkBroken();  // channel 1 is the publishing channel; start over on a fresh connection
        return s;
      }
      default:
        break;  // connection.blocked/unblocked: keep waiting until the deadline
    }
  }
  if (nacked > 0)
    return Status::Unavailable("RabbitMQ refused " + std::to_string(nacked) +
                               " published message(s) (basic.nack); they will be published again");
  if (last_returned_ > 0)
    return Status::Unavailable(std::to_string(last_returned_) + " published message(s) could not be routed ('" +
                               returned_to + "': no such queue or binding); idem re-declares its queues and retries");
  return Status::OK();
}

}  // namespace idem::rabbitmq
