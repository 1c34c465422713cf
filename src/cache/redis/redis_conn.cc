#include "cache/redis/redis_conn.h"

#include <sys/time.h>

#include <algorithm>
#include <cerrno>

#include "cache/redis/sigpipe_guard.h"

namespace idem::redis {
namespace {

timeval Timeval(int64_t ms) {
  return timeval{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>((ms % 1000) * 1000)};
}

}  // namespace

Conn::Conn(Endpoint endpoint, RedisFilterOptions options, Env* env)
    : endpoint_(std::move(endpoint)), options_(std::move(options)), env_(env) {}

Conn::~Conn() {
  if (ctx_) redisFree(ctx_);
}

std::string Conn::Describe() const {
  return endpoint_.host + ":" + std::to_string(endpoint_.port) + "/" + std::to_string(endpoint_.db);
}

Status Conn::EnsureConnected() {
  if (ctx_) return Status::OK();
  const int64_t now = env_->NowMs();
  if (now < next_connect_ms_)
    return Status::Unavailable("Redis at " + Describe() + " is unreachable (" + last_error_ +
                               "); the next reconnect attempt is in " + std::to_string(next_connect_ms_ - now) + " ms");
  Status s = Connect();
  if (s.ok()) {
    backoff_ms_ = 0;
    return s;
  }
  backoff_ms_ = backoff_ms_ == 0 ? options_.reconnect_backoff_min_ms
                                 : std::min(backoff_ms_ * 2, options_.reconnect_backoff_max_ms);
  next_connect_ms_ = now + backoff_ms_;
  return s;
}

Status Conn::Connect() {
  redisContext* c =
      redisConnectWithTimeout(endpoint_.host.c_str(), endpoint_.port, Timeval(options_.connect_timeout_ms));
  if (!c || c->err) {
    last_error_ = c ? c->errstr : "out of memory";
    if (c) redisFree(c);
    return Status::Unavailable("cannot connect to Redis at " + Describe() + " within the connect timeout of " +
                               std::to_string(options_.connect_timeout_ms) + " ms: " + last_error_ +
                               " (check that redis-server runs and that the URL is right)");
  }
  ctx_ = c;
  redisSetTimeout(ctx_, Timeval(options_.command_timeout_ms));
  std::vector<Command> setup;
  if (!endpoint_.password.empty())
    setup.push_back(endpoint_.user.empty() ? Command{"AUTH", endpoint_.password}
                                           : Command{"AUTH", endpoint_.user, endpoint_.password});
  if (endpoint_.db != 0) setup.push_back({"SELECT", std::to_string(endpoint_.db)});
  if (!options_.client_name.empty()) setup.push_back({"CLIENT", "SETNAME", options_.client_name});
  if (setup.empty()) return Status::OK();
  auto r = RoundTrip(setup);
  if (r.ok()) return Status::OK();
  if (ctx_) (void)Drop(r.status().message());  // an error reply (wrong password, no such db) leaves it open
  return Status::Unavailable("cannot set up the Redis connection to " + Describe() + ": " + r.status().message());
}

std::string Conn::ErrorText(const std::string& fallback) const {
  if (!ctx_ || !ctx_->err) return fallback;
  // hiredis 0.14 reports a read past the command timeout as an I/O error with
  // errno EAGAIN ("Resource temporarily unavailable"), which says nothing to a user.
  if (ctx_->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK))
    return "no answer within the command timeout of " + std::to_string(options_.command_timeout_ms) +
           " ms (is it Redis that listens there, and is it overloaded?)";
  return ctx_->errstr;
}

Status Conn::Drop(const std::string& what) {
  last_error_ = ErrorText(what);
  redisFree(ctx_);
  ctx_ = nullptr;
  // Reconnect at the next call: the server may have closed only this connection.
  next_connect_ms_ = 0;
  return Status::Unavailable("Redis at " + Describe() + " failed: " + last_error_ +
                             " (connection dropped; the next call reconnects)");
}

Result<std::vector<ReplyPtr>> Conn::RoundTrip(const std::vector<Command>& commands) {
  IDEM_RETURN_IF_ERROR(EnsureConnected());
  SigpipeGuard guard;
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  for (const Command& cmd : commands) {
    argv.clear();
    lengths.clear();
    for (const std::string& arg : cmd) {
      argv.push_back(arg.data());
      lengths.push_back(arg.size());
    }
    if (redisAppendCommandArgv(ctx_, static_cast<int>(argv.size()), argv.data(), lengths.data()) != REDIS_OK)
      return Drop("cannot queue a command");
  }
  std::vector<ReplyPtr> replies;
  replies.reserve(commands.size());
  std::string refused;
  for (size_t i = 0; i < commands.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(ctx_, &raw) != REDIS_OK || !raw) return Drop("no reply");
    ReplyPtr reply(static_cast<redisReply*>(raw));
    // Keep reading after an error reply, so the connection stays in step.
    if (reply->type == REDIS_REPLY_ERROR && refused.empty()) refused.assign(reply->str, reply->len);
    replies.push_back(std::move(reply));
  }
  if (!refused.empty()) return Status::Unavailable("Redis at " + Describe() + " refused a command: " + refused);
  return replies;
}

}  // namespace idem::redis
