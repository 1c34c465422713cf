#include "service/json_log.h"

#include "idem/backend_log.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <ctime>

namespace idem::service {
namespace {

// The whole line, or as much as the descriptor takes: a log that cannot be
// written (a closed pipe) must not stop the consumer.
void WriteAll(int fd, std::string_view text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

LogTime::LogTime(int64_t ms) {
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  const size_t n = std::strftime(buf_, sizeof buf_, "%Y-%m-%dT%H:%M:%S", &tm);
  const int tail = std::snprintf(buf_ + n, sizeof buf_ - n, ".%03dZ", static_cast<int>(ms % 1000));
  size_ = n + static_cast<size_t>(tail);
}

void JsonLog::Write(std::string_view level, std::string_view event, nlohmann::json fields) {
  nlohmann::json line = nlohmann::json::object();
  line["ts"] = Now().text();
  line["level"] = level;
  line["event"] = event;
  if (fields.is_object())
    for (auto& [k, v] : fields.items()) line[k] = std::move(v);
  // Keys and reasons may come from a broker and hold invalid UTF-8: replace, never throw.
  std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text += '\n';
  WriteLine(text);
}

void JsonLog::WriteLine(std::string_view line) {
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ >= 0) {
    WriteAll(fd_, line);
    return;
  }
  *out_ << line;
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
