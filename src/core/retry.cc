#include "idem/retry.h"

namespace idem {

int64_t RetryPolicy::DelayAfter(int failed_attempts) const {
  if (ladder_ms.empty()) return 0;
  size_t rung = failed_attempts <= 1 ? 0 : static_cast<size_t>(failed_attempts - 1);
  if (rung >= ladder_ms.size()) rung = ladder_ms.size() - 1;
  return ladder_ms[rung];
}

int64_t RetryPolicy::RetryWindowMs() const {
  int64_t total = 0;
  for (int i = 1; i < max_attempts; ++i) total += DelayAfter(i);
  return total;
}

std::string RetryPolicy::Validate() const {
  if (max_attempts < 1) return "max_attempts must be at least 1";
  if (in_process_tries < 1) return "in_process_tries must be at least 1";
  if (in_process_backoff_ms < 0) return "in_process_backoff_ms must not be negative";
  if (ladder_ms.empty() && max_attempts > 1) return "the retry ladder is empty but max_attempts > 1";
  for (int64_t d : ladder_ms)
    if (d < 0) return "retry ladder delays must not be negative";
  return {};
}

}  // namespace idem
