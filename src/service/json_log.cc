#include "service/json_log.h"

#include "idem/backend_log.h"

#include <unistd.h>

#include <cerrno>
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

// The whole line, or as much as the descriptor takes: a log that cannot be
// written (a closed pipe) must not stop the consumer.
void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
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
  std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text += '\n';
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ >= 0) {
    WriteAll(fd_, text);
    return;
  }
  *out_ << text;
  out_->flush();  // a log line is read by a collector (or a test) as soon as it is written
}

BackendLogRoute::BackendLogRoute(JsonLog* log) {
  SetBackendLogHook([log](BackendLogLevel level, std::string_view source, std::string_view event,
                          std::string_view message, std::span<const BackendLogField> fields) {
    const char* name = level == BackendLogLevel::kError  ? "error"
                       : level == BackendLogLevel::kWarn ? "warn"
                       : level == BackendLogLevel::kInfo ? "info"
                                                         : "debug";
    nlohmann::json line{{"source", source}, {"message", message}};
    for (const BackendLogField& f : fields) line[std::string(f.name)] = f.value;
    log->Write(name, event, std::move(line));
  });
}

BackendLogRoute::~BackendLogRoute() { SetBackendLogHook(nullptr); }

}  // namespace idem::service
