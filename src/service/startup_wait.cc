#include "service/startup_wait.h"

#include <algorithm>

namespace idem::service {

Status AsStartFailure(const std::string& what, const Status& s) {
  switch (s.code()) {
    case Status::Code::kInvalidArgument:
      return Status::InvalidArgument(what + ": " + s.message());
    case Status::Code::kUnavailable:
    case Status::Code::kBusy:
      return Status::Unavailable(what + ": " + s.ToString());
    default:
      return Status::Permanent(what + ": " + s.ToString());
  }
}

StartupWaitResult RetryWhileUnavailable(const std::function<Status()>& attempt, const StartupWaitOptions& options,
                                        Env* env, JsonLog* log, const std::function<bool()>& stop_requested) {
  StartupWaitResult r;
  const int64_t start_ms = env->MonotonicMicros() / 1000;
  int64_t backoff_ms = options.first_backoff_ms;
  for (;;) {
    ++r.attempts;
    r.status = attempt();
    if (r.status.ok() || r.status.code() != Status::Code::kUnavailable) return r;
    const int64_t waited_ms = env->MonotonicMicros() / 1000 - start_ms;
    const int64_t left_ms = options.timeout_ms - waited_ms;
    if (left_ms <= 0) break;
    const int64_t pause_ms = std::min({backoff_ms, options.max_backoff_ms, left_ms});
    log->Warn("start_waiting", {{"attempt", r.attempts},
                                {"error", r.status.message()},
                                {"retry_in_ms", pause_ms},
                                {"waited_ms", waited_ms},
                                {"startup_timeout_ms", options.timeout_ms}});
    // The pause in slices, so a stop signal is heard within stop_check_ms.
    for (int64_t slept = 0; slept < pause_ms;) {
      if (stop_requested && stop_requested()) {
        r.stopped = true;
        r.status = Status::OK();
        return r;
      }
      const int64_t slice = std::min(options.stop_check_ms, pause_ms - slept);
      env->SleepMs(slice);
      slept += slice;
    }
    backoff_ms = std::min(backoff_ms * 2, options.max_backoff_ms);
  }
  r.status = Status::Unavailable(
      r.status.message() + "; still failing after " + std::to_string(r.attempts) + " attempt(s) in " +
      std::to_string(options.timeout_ms) +
      " ms ([service] startup_timeout_ms): start the server or fix its address, then start idem run again (a "
      "restart policy such as systemd Restart=on-failure does it), or raise startup_timeout_ms");
  return r;
}

}  // namespace idem::service
