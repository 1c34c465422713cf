// The period a bank statement covers. A daily statement lists one day's
// movements while the ledger holds years of them: only ledger entries inside
// the period are compared with it (duplicates are still looked for everywhere).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "idem/status.h"

namespace idem::reconcile {

struct Period {
  int64_t from_ms = std::numeric_limits<int64_t>::min();   // included
  int64_t until_ms = std::numeric_limits<int64_t>::max();  // excluded
  bool Contains(int64_t ms) const { return ms >= from_ms && ms < until_ms; }
  bool IsAll() const {
    return from_ms == std::numeric_limits<int64_t>::min() && until_ms == std::numeric_limits<int64_t>::max();
  }
};

// "2026-09-28" (midnight UTC), "2026-09-28T10:00:00Z", "2026-09-28T10:00:00.5+08:00", or
// milliseconds since the epoch ("1790560812000") → ms since the epoch.
// InvalidArgument that shows the accepted forms otherwise.
Result<int64_t> ParseTimeMs(std::string_view text);

}  // namespace idem::reconcile
