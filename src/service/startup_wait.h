// Start-up that rides out a store or broker that is not up yet. `idem run`
// opens the service again, pausing with a doubling backoff, while the failure
// is Unavailable (the server cannot be reached, or another process holds a
// lock), up to [service] startup_timeout_ms; a running worker rides out the
// same outage, so a deploy that starts before its database should too. A
// configuration error (InvalidArgument: a wrong URL, a missing table) or any
// other failure ends the wait at once.
#pragma once

#include <functional>
#include <string>

#include "idem/env.h"
#include "idem/status.h"
#include "service/json_log.h"

namespace idem::service {

struct StartupWaitOptions {
  int64_t timeout_ms = 60'000;       // [service] startup_timeout_ms; 0: one attempt, no wait
  int64_t first_backoff_ms = 250;    // the first pause; it doubles after each attempt
  int64_t max_backoff_ms = 5'000;    // the longest pause
  int64_t stop_check_ms = 100;       // how often `stop_requested` is asked during a pause
};

struct StartupWaitResult {
  Status status;           // OK: `attempt` succeeded; else why start-up gave up
  bool stopped = false;    // a stop was requested during the wait (status is OK, nothing started)
  int attempts = 0;
};

// Runs `attempt` until it returns OK, a status that is not Unavailable, the
// time is up (Env's clock), or `stop_requested` returns true. Each failed
// attempt that is retried is logged as a "start_waiting" warning (attempt,
// error, retry_in_ms, waited_ms, startup_timeout_ms). When the time is up the
// status is Unavailable and says what to do.
StartupWaitResult RetryWhileUnavailable(const std::function<Status()>& attempt, const StartupWaitOptions& options,
                                        Env* env, JsonLog* log, const std::function<bool()>& stop_requested);

// `s` as a start-up failure of `what`: InvalidArgument stays a configuration
// error; Unavailable and Busy become Unavailable (worth waiting for); any other
// failure becomes Permanent (no wait: retrying would not change it).
Status AsStartFailure(const std::string& what, const Status& s);

}  // namespace idem::service
