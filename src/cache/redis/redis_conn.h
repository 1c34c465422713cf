// One connection to redis-server: opened on demand, dropped after any I/O
// failure, re-opened with back-off, and a pipelined round trip for a batch of
// commands. Not thread-safe.
#pragma once

#include <hiredis/hiredis.h>

#include <memory>
#include <string>
#include <vector>

#include "cache/redis/redis_url.h"
#include "idem/env.h"
#include "idem/redis_filter.h"
#include "idem/status.h"

namespace idem::redis {

using Command = std::vector<std::string>;

struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

class Conn {
 public:
  Conn(Endpoint endpoint, RedisFilterOptions options, Env* env);
  ~Conn();
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  // Sends every command, then reads every reply: one round trip. Unavailable if
  // Redis cannot be reached, times out, or answers any command with an error.
  Result<std::vector<ReplyPtr>> RoundTrip(const std::vector<Command>& commands);

  // "host:port/db" for messages; never the password.
  std::string Describe() const;

 private:
  Status EnsureConnected();
  Status Connect();
  // What went wrong on the context (errno must still be that of the failed
  // call), or `fallback` when hiredis recorded nothing.
  std::string ErrorText(const std::string& fallback) const;
  // Forgets the connection: after a timeout a late reply could otherwise be
  // read as the answer to a later command.
  Status Drop(const std::string& what);

  Endpoint endpoint_;
  RedisFilterOptions options_;
  Env* env_;
  redisContext* ctx_ = nullptr;
  int64_t next_connect_ms_ = 0;  // no reconnect attempt before this time
  int64_t backoff_ms_ = 0;
  std::string last_error_;
};

}  // namespace idem::redis
