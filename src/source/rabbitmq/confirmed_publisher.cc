#include "source/rabbitmq/confirmed_publisher.h"

#include <amqp.h>
#include <sys/time.h>

#include <algorithm>

#include "core/bounded_text.h"
#include "source/rabbitmq/publish_limits.h"

namespace idem::rabbitmq {

Status ConfirmedPublisher::Start() {
  held_.reset();
  ++generation_;
  next_seq_ = 0;  // sequence numbers restart with every channel
  amqp_confirm_select(conn_->raw(), 1);
  return conn_->Check(amqp_get_rpc_reply(conn_->raw()), "enabling publisher confirms");
}

Status ConfirmedPublisher::PublishAll(const std::vector<Outgoing*>& batch) { return Publish(batch, false); }
Status ConfirmedPublisher::PublishOrHold(const std::vector<Outgoing*>& batch) { return Publish(batch, true); }

Status ConfirmedPublisher::Publish(const std::vector<Outgoing*>& batch, bool hold) {
  last_returned_ = 0;
  if (batch.empty()) return Status::OK();
  if (!conn_->is_open()) return Status::Unavailable("the RabbitMQ publishing connection is closed");
  if (held_) return Status::Unavailable("an earlier batch still awaits its confirms");
  // Everything first: a message AMQP cannot carry fails before the batch's
  // first frame is written, so nothing of the batch is sent twice or half.
  const size_t frame_max = static_cast<size_t>(amqp_get_frame_max(conn_->raw()));
  for (size_t i = 0; i < batch.size(); ++i)
    if (Status s = CheckPublishable(*batch[i], frame_max); !s.ok())
      return Status::InvalidArgument("RabbitMQ cannot carry message " + std::to_string(i + 1) + " of " +
                                     std::to_string(batch.size()) + " (nothing of this batch was sent): " +
                                     s.message());
  Outstanding o;
  o.first = next_seq_ + 1;
  for (Outgoing* m : batch) {
    amqp_basic_properties_t props = m->Properties();
    int rc = amqp_basic_publish(conn_->raw(), 1, StringBytes(m->exchange), StringBytes(m->routing_key),
                                /*mandatory=*/1, /*immediate=*/0, &props, StringBytes(m->body));
    IDEM_RETURN_IF_ERROR(conn_->CheckStatus(rc, "publishing to " + BoundedQuote(m->exchange) + "/" + BoundedQuote(m->routing_key)));
    ++next_seq_;
  }
  o.last = next_seq_;
  o.settled.assign(o.last - o.first + 1, false);
  o.open = o.settled.size();
  Status s = Await(std::move(o), hold);
  amqp_maybe_release_buffers(conn_->raw());
  return s;
}

Status ConfirmedPublisher::Resume() {
  last_returned_ = 0;
  if (!held_) return Status::OK();
  if (!conn_->is_open()) {
    held_.reset();
    return Status::Unavailable("the connection holding unconfirmed messages was lost; they will be sent again");
  }
  Outstanding o = std::move(*held_);
  held_.reset();
  return Await(std::move(o), true);
}

// Confirms may come singly or as a multiple ack covering every tag up to one,
// and not necessarily in order; a returned message's basic.return arrives before
// its basic.ack.
Status ConfirmedPublisher::Await(Outstanding o, bool hold) {
  const int64_t deadline_us = env_->MonotonicMicros() + conn_->options().rpc_timeout_ms * 1000;
  auto mark = [&](uint64_t tag, bool multiple, bool nack) {
    const uint64_t lo = multiple ? o.first : tag;
    for (uint64_t t = std::max(lo, o.first); t <= std::min(tag, o.last); ++t) {
      if (o.settled[t - o.first]) continue;
      o.settled[t - o.first] = true;
      --o.open;
      if (nack) ++o.nacked;
    }
  };
  while (o.open > 0) {
    const int64_t left = deadline_us - env_->MonotonicMicros();
    if (left <= 0) {
      const std::string what = "RabbitMQ has not confirmed " + std::to_string(o.open) +
                               " published message(s) within " + std::to_string(conn_->options().rpc_timeout_ms) +
                               " ms (is a memory or disk alarm blocking publishers?)";
      if (hold) {
        held_ = std::move(o);
        return Status::Unavailable(what + "; idem keeps waiting for them");
      }
      conn_->MarkBroken();  // the channel's confirm state is unknown now
      return Status::Unavailable(what + "; they will be published again");
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
        o.returned_to = BytesToString(ret->exchange) + "'/'" + BytesToString(ret->routing_key);
        ++o.returned;
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
        // The broker refused a message it had been sent (406: over its
        // max_message_size): permanent, and the batch's earlier messages may be
        // stored — not InvalidArgument, which says nothing was sent.
        auto* close = m.id == AMQP_CHANNEL_CLOSE_METHOD ? static_cast<amqp_channel_close_t*>(m.decoded) : nullptr;
        if (close && close->reply_code == AMQP_PRECONDITION_FAILED) {
          return Status::Permanent("RabbitMQ refused a published message: " + std::to_string(close->reply_code) +
                                   " " + BoundedQuote(BytesToString(close->reply_text), 200) +
                                   "; messages before it in the batch may be stored");
        }
        return s;
      }
      default:
        break;  // connection.blocked/unblocked: keep waiting until the deadline
    }
  }
  last_returned_ = o.returned;
  if (o.nacked > 0)
    return Status::Unavailable("RabbitMQ refused " + std::to_string(o.nacked) +
                               " published message(s) (basic.nack); they will be published again");
  if (last_returned_ > 0)
    return Status::Unavailable(std::to_string(last_returned_) + " published message(s) could not be routed ('" +
                               o.returned_to + "': no such queue or binding); idem re-declares its queues and retries");
  return Status::OK();
}

}  // namespace idem::rabbitmq
