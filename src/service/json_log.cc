#include "service/json_log.h"

#include <ctime>

namespace idem::service {
namespace {

std::string IsoTime(int64_t ms) {
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms % 1000));
  return buf;
}

}  // namespace

void JsonLog::Write(std::string_view level, std::string_view event, nlohmann::json fields) {
  nlohmann::json line = nlohmann::json::object();
  line["ts"] = IsoTime(env_->NowMs());
  line["level"] = level;
  line["event"] = event;
  if (fields.is_object())
    for (auto& [k, v] : fields.items()) line[k] = std::move(v);
  // Keys and reasons may come from a broker and hold invalid UTF-8: replace, never throw.
  const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::lock_guard<std::mutex> lock(mu_);
  *out_ << text << '\n';
  out_->flush();  // a log line is read by a collector (or a test) as soon as it is written
}

}  // namespace idem::service
