#include "source/rabbitmq/connection.h"

#include <amqp_framing.h>
#include <amqp_tcp_socket.h>
#include <sys/time.h>

namespace idem::rabbitmq {
namespace {

timeval ToTimeval(int64_t ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms % 1000) * 1000);
  return tv;
}

}  // namespace

std::string BytesToString(amqp_bytes_t bytes) {
  if (bytes.len == 0 || bytes.bytes == nullptr) return {};
  return std::string(static_cast<const char*>(bytes.bytes), bytes.len);
}

amqp_bytes_t StringBytes(const std::string& s) {
  amqp_bytes_t b;
  b.len = s.size();
  b.bytes = const_cast<char*>(s.data());
  return b;
}

Status Annotate(const Status& s, const std::string& note) {
  const std::string m = s.message() + note;
  switch (s.code()) {
    case Status::Code::kOk: return s;
    case Status::Code::kInvalidArgument: return Status::InvalidArgument(m);
    case Status::Code::kNotFound: return Status::NotFound(m);
    case Status::Code::kAlreadyExists: return Status::AlreadyExists(m);
    case Status::Code::kRetryable: return Status::Retryable(m);
    case Status::Code::kUnavailable: return Status::Unavailable(m);
    case Status::Code::kBusy: return Status::Busy(m);
    case Status::Code::kTransactionConflict: return Status::TransactionConflict(m);
    case Status::Code::kInDoubt: return Status::InDoubt(m);
    case Status::Code::kPermanent: return Status::Permanent(m);
    case Status::Code::kCorruption: return Status::Corruption(m);
    case Status::Code::kIOError: return Status::IOError(m);
    case Status::Code::kNotSupported: return Status::NotSupported(m);
  }
  return Status::Unavailable(m);
}

AmqpConnection::AmqpConnection(const RabbitMqOptions& options, std::string purpose)
    : opt_(options), purpose_(std::move(purpose)) {}

AmqpConnection::~AmqpConnection() { Close(); }

Status AmqpConnection::Open() {
  Close();
  const std::string where = opt_.host + ":" + std::to_string(opt_.port);
  state_ = amqp_new_connection();
  if (!state_) return Status::Unavailable("out of memory creating an AMQP connection");
  amqp_socket_t* socket = amqp_tcp_socket_new(state_);
  if (!socket) {
    Close();
    return Status::Unavailable("cannot create a TCP socket for RabbitMQ");
  }
  timeval connect_tv = ToTimeval(opt_.connect_timeout_ms);
  int rc = amqp_socket_open_noblock(socket, opt_.host.c_str(), opt_.port, &connect_tv);
  const std::string waited = "connect_timeout_ms=" + std::to_string(opt_.connect_timeout_ms);
  if (rc != AMQP_STATUS_OK) {
    Close();
    return Status::Unavailable("cannot connect to RabbitMQ at " + where + " within " + waited + " (" +
                               amqp_error_string2(rc) + "): is the broker running? idem retries the connection");
  }
  timeval rpc_tv = ToTimeval(opt_.rpc_timeout_ms);
  amqp_set_handshake_timeout(state_, &connect_tv);
  amqp_set_rpc_timeout(state_, &rpc_tv);

  // The connection name shows in the management UI and `rabbitmqctl list_connections`.
  std::string name = "idem " + purpose_;
  amqp_table_entry_t entry;
  entry.key = amqp_cstring_bytes("connection_name");
  entry.value.kind = AMQP_FIELD_KIND_UTF8;
  entry.value.value.bytes = StringBytes(name);
  amqp_table_t props{1, &entry};
  amqp_rpc_reply_t reply =
      amqp_login_with_properties(state_, opt_.vhost.c_str(), 0, 131072, opt_.heartbeat_s, &props,
                                 AMQP_SASL_METHOD_PLAIN, opt_.user.c_str(), opt_.password.c_str());
  if (reply.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION && reply.library_error == AMQP_STATUS_TIMEOUT) {
    // Something accepted the TCP connection and then said nothing. Broken: a
    // polite close would wait for an answer all over again.
    broken_ = true;
    Close();
    return Status::Unavailable("RabbitMQ at " + where + " accepted the connection but did not answer the AMQP "
                               "handshake within " + waited +
                               ": is it RabbitMQ that listens on that port, and is it overloaded? idem retries "
                               "the connection");
  }
  if (Status s = Check(reply, "login to " + where + " vhost '" + opt_.vhost + "' as '" + opt_.user + "'");
      !s.ok()) {
    Close();
    return s;
  }
  broken_ = false;
  if (Status s = OpenChannel(1); !s.ok()) {
    Close();
    return s;
  }
  ++generation_;
  return Status::OK();
}

void AmqpConnection::Close() {
  if (!state_) return;
  // Closing politely on a dead socket would only wait for the rpc timeout.
  if (!broken_) {
    amqp_connection_close(state_, AMQP_REPLY_SUCCESS);
  }
  amqp_destroy_connection(state_);
  state_ = nullptr;
  broken_ = false;
}

Status AmqpConnection::OpenChannel(amqp_channel_t channel) {
  amqp_channel_open(state_, channel);
  return Check(amqp_get_rpc_reply(state_), "opening channel " + std::to_string(channel), channel);
}

Status AmqpConnection::CloseChannel(amqp_channel_t channel) {
  if (!is_open()) return Status::OK();
  return Check(amqp_channel_close(state_, channel, AMQP_REPLY_SUCCESS), "closing channel", channel);
}

Status AmqpConnection::ServerError(const amqp_method_t& method, const std::string& what, amqp_channel_t channel) {
  if (method.id == AMQP_CONNECTION_CLOSE_METHOD) {
    auto* m = static_cast<amqp_connection_close_t*>(method.decoded);
    amqp_connection_close_ok_t ok{};
    (void)amqp_send_method(state_, 0, AMQP_CONNECTION_CLOSE_OK_METHOD, &ok);
    broken_ = true;
    const std::string text = what + ": the broker closed the connection: " + std::to_string(m->reply_code) +
                             " " + BytesToString(m->reply_text);
    switch (m->reply_code) {
      case AMQP_ACCESS_REFUSED:
      case AMQP_NOT_ALLOWED:
        return Status::Permanent(text + " (check the user, password and vhost in the amqp:// URL)");
      default:  // 320 CONNECTION_FORCED: shutting down or restarting
        return Status::Unavailable(text + " (idem reconnects)");
    }
  }
  if (method.id == AMQP_CHANNEL_CLOSE_METHOD) {
    auto* m = static_cast<amqp_channel_close_t*>(method.decoded);
    amqp_channel_close_ok_t ok{};
    if (amqp_send_method(state_, channel, AMQP_CHANNEL_CLOSE_OK_METHOD, &ok) != AMQP_STATUS_OK) broken_ = true;
    const std::string text = what + ": the broker closed channel " + std::to_string(channel) + ": " +
                             std::to_string(m->reply_code) + " " + BytesToString(m->reply_text);
    switch (m->reply_code) {
      case AMQP_NOT_FOUND:
        return Status::NotFound(text);
      case AMQP_PRECONDITION_FAILED:
        return Status::InvalidArgument(text +
                                       " (a queue or exchange of that name exists with other settings: "
                                       "delete it, or choose another queue= name in the URL)");
      case AMQP_ACCESS_REFUSED:
        return Status::Permanent(text + " (the user lacks permissions on this vhost)");
      case AMQP_RESOURCE_LOCKED:
        return Status::Busy(text);
      default:
        return Status::Unavailable(text);
    }
  }
  broken_ = true;
  return Status::Unavailable(what + ": unexpected AMQP method 0x" + std::to_string(method.id));
}

Status AmqpConnection::Check(const amqp_rpc_reply_t& reply, const std::string& what, amqp_channel_t channel) {
  switch (reply.reply_type) {
    case AMQP_RESPONSE_NORMAL:
      return Status::OK();
    case AMQP_RESPONSE_NONE:
      broken_ = true;
      return Status::Unavailable(what + ": no reply from RabbitMQ (idem reconnects)");
    case AMQP_RESPONSE_LIBRARY_EXCEPTION:
      // Timeouts, socket errors, heartbeat loss: the connection's state is unknown.
      broken_ = true;
      return Status::Unavailable(what + ": " + amqp_error_string2(reply.library_error) +
                                 " (lost the RabbitMQ connection; idem reconnects)");
    case AMQP_RESPONSE_SERVER_EXCEPTION:
      return ServerError(reply.reply, what, channel);
  }
  broken_ = true;
  return Status::Unavailable(what + ": unknown reply from rabbitmq-c");
}

Status AmqpConnection::CheckStatus(int status, const std::string& what) {
  if (status == AMQP_STATUS_OK) return Status::OK();
  broken_ = true;
  return Status::Unavailable(what + ": " + amqp_error_string2(status) + " (lost the RabbitMQ connection; idem reconnects)");
}

Status AmqpConnection::OnCloseMethod(const amqp_frame_t& frame, const std::string& what) {
  return ServerError(frame.payload.method, what, frame.channel);
}

}  // namespace idem::rabbitmq
