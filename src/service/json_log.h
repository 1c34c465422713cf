// JsonLog: the service's log, one JSON object per line on one stream.
//
// Every line has "ts" (UTC, milliseconds), "level" and "event"; the rest are
// the event's fields. Lines from different threads never interleave. Nothing
// that reaches here may hold a payload: callers pass keys, ids and reasons only.
//
// On a file descriptor each line is handed to the kernel with write(2) before
// Write returns — no stdio or stream buffer holds it — so a line written
// before an acknowledgement survives a SIGKILL right after it.
#pragma once

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string_view>

#include "idem/env.h"

namespace idem::service {

// A line's "ts": UTC with milliseconds, e.g. "2026-12-04T22:44:06.123Z".
class LogTime {
 public:
  explicit LogTime(int64_t ms);
  std::string_view text() const { return {buf_, size_}; }

 private:
  char buf_[40];
  size_t size_;
};

class JsonLog {
 public:
  JsonLog(std::ostream* out, Env* env) : out_(out), env_(env) {}
  // Writes each line to `fd` (not owned) with write(2).
  JsonLog(int fd, Env* env) : fd_(fd), env_(env) {}

  void Info(std::string_view event, nlohmann::json fields = nlohmann::json::object()) {
    Write("info", event, std::move(fields));
  }
  void Warn(std::string_view event, nlohmann::json fields = nlohmann::json::object()) {
    Write("warn", event, std::move(fields));
  }
  void Error(std::string_view event, nlohmann::json fields = nlohmann::json::object()) {
    Write("error", event, std::move(fields));
  }
  void Write(std::string_view level, std::string_view event, nlohmann::json fields);

  // The "ts" of a line written now.
  LogTime Now() const { return LogTime(env_->NowMs()); }
  // Writes `line`, a whole line built by the caller (decision_line.h), newline included.
  void WriteLine(std::string_view line);

 private:
  std::mutex mu_;
  std::ostream* out_ = nullptr;
  int fd_ = -1;
  Env* env_;
};

// While it lives, every backend adapter's diagnostics (idem/backend_log.h:
// Kafka's adapter, librdkafka) are lines of `log`, with the adapter as "source",
// their text as "message" and each of their fields (BackendLogField) as a key
// of its own ("facility", "broker", …). `log` must outlive it.
class BackendLogRoute {
 public:
  explicit BackendLogRoute(JsonLog* log);
  ~BackendLogRoute();  // back to stderr
  BackendLogRoute(const BackendLogRoute&) = delete;
  BackendLogRoute& operator=(const BackendLogRoute&) = delete;
};

}  // namespace idem::service
