// Opens the fast filter for `--redis-url`. Builds with the Redis filter
// (IDEM_WITH_REDIS, src/cache/redis) open a real one; other builds say how to
// get it, so a bench asked for Redis never quietly runs without it.
#pragma once

#include <memory>
#include <string>

#include "idem/fast_filter.h"
#include "idem/status.h"

namespace idem::bench {

Result<std::unique_ptr<FastFilter>> OpenBenchFastFilter(const std::string& redis_url);

}  // namespace idem::bench
