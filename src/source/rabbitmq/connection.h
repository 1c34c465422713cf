// AmqpConnection: one rabbitmq-c connection, with broker errors turned into
// Status values that say what to do.
//
// A connection is either open or broken. Any socket error, timeout or
// connection.close from the broker marks it broken; the owner reconnects with
// Open() on its next call (a broker restart is an ordinary, retryable event).
// A channel.close from the broker (e.g. 404 NOT_FOUND, 406 PRECONDITION_FAILED)
// closes only that channel; the owner may reopen it.
//
// Thread safety: none; one thread uses a connection.
#pragma once

#include <amqp.h>

#include <cstdint>
#include <string>

#include "idem/rabbitmq.h"
#include "idem/status.h"

namespace idem::rabbitmq {

class AmqpConnection {
 public:
  AmqpConnection(const RabbitMqOptions& options, std::string purpose);
  ~AmqpConnection();
  AmqpConnection(const AmqpConnection&) = delete;
  AmqpConnection& operator=(const AmqpConnection&) = delete;

  // Connects, logs in and opens channel 1. Closes any previous connection first
  // and increments generation(). REQUIRES: !is_open().
  Status Open();
  // Best-effort polite close; the connection is closed afterwards either way.
  void Close();
  bool is_open() const { return state_ != nullptr && !broken_; }
  // Increments on every successful Open(): delivery tags are only valid within one.
  uint64_t generation() const { return generation_; }
  amqp_connection_state_t raw() { return state_; }

  Status OpenChannel(amqp_channel_t channel);
  // Closes a channel the broker has not closed; unacked deliveries on it are requeued.
  Status CloseChannel(amqp_channel_t channel);

  // Converts the reply of an rpc-style call. A connection-level failure marks the
  // connection broken; a channel.close is acknowledged (channel.close-ok).
  Status Check(const amqp_rpc_reply_t& reply, const std::string& what, amqp_channel_t channel = 1);
  // Converts an amqp_status_enum from a non-rpc call (publish, ack). Any error
  // there means the socket is unusable, so it marks the connection broken.
  Status CheckStatus(int status, const std::string& what);
  // Handles a connection.close or channel.close method frame read outside an rpc.
  Status OnCloseMethod(const amqp_frame_t& frame, const std::string& what);

  void MarkBroken() { broken_ = true; }
  const std::string& purpose() const { return purpose_; }
  const RabbitMqOptions& options() const { return opt_; }

 private:
  Status ServerError(const amqp_method_t& method, const std::string& what, amqp_channel_t channel);

  RabbitMqOptions opt_;
  std::string purpose_;
  amqp_connection_state_t state_ = nullptr;
  bool broken_ = false;
  uint64_t generation_ = 0;
};

// What the broker sent back, as text: "406 PRECONDITION_FAILED - inequivalent arg …".
std::string BytesToString(amqp_bytes_t bytes);
amqp_bytes_t StringBytes(const std::string& s);  // a view; `s` must outlive it
// The same kind of error with `note` appended to its message.
Status Annotate(const Status& s, const std::string& note);

}  // namespace idem::rabbitmq
