// Retry policy: classification, in-process retries, the delay-tier ladder and
// the attempt cap that sends a message to the terminal queue.
//
// Thread safety: a RetryPolicy is a plain value; its const members keep no
// state, so one policy may be read by several threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace idem {

struct RetryPolicy {
  // Handler runs per delivery before giving up on this delivery. 1 = no
  // in-process retry (default). With 3, a retryable failure is retried twice more
  // in place, waiting in_process_backoff_ms, then twice that. Note the store
  // transaction stays open meanwhile, so keep these short.
  int in_process_tries = 1;
  int64_t in_process_backoff_ms = 1'000;  // default 1 s, doubling

  // Delay before each retry delivery: rung i is used after the i-th failed
  // attempt; the last rung repeats. Default 30 s, 1 min, 5 min, 5 min, 5 min.
  std::vector<int64_t> ladder_ms{30'000, 60'000, 300'000, 300'000, 300'000};

  // Total attempts (handler executions that failed retryably count) before the
  // message is parked in the terminal queue. Default 5.
  int max_attempts = 5;

  // The delay after `failed_attempts` failures (1-based), from the ladder.
  int64_t DelayAfter(int failed_attempts) const;
  // The longest time a message can spend being retried: the sum of the rungs
  // used by max_attempts - 1 retries. Redis TTLs and record retention must cover it.
  int64_t RetryWindowMs() const;
  // Empty when the policy is usable; otherwise what is wrong with it.
  std::string Validate() const;
};

}  // namespace idem
