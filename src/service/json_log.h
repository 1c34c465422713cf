// JsonLog: the service's log, one JSON object per line on one stream.
//
// Every line has "ts" (UTC, milliseconds), "level" and "event"; the rest are
// the event's fields. Lines from different threads never interleave. Nothing
// that reaches here may hold a payload: callers pass keys, ids and reasons only.
#pragma once

#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string_view>

#include "idem/env.h"

namespace idem::service {

class JsonLog {
 public:
  JsonLog(std::ostream* out, Env* env) : out_(out), env_(env) {}

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

 private:
  std::mutex mu_;
  std::ostream* out_;
  Env* env_;
};

}  // namespace idem::service
