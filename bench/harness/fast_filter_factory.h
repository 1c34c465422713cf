// Opens the fast filter for `--redis-url` with the bench's own key prefix.
// A build without the Redis filter says which CMake option builds it, so a
// bench asked for Redis never quietly runs without it.
#pragma once

#include <memory>
#include <string>

#include "idem/fast_filter.h"
#include "idem/status.h"

namespace idem::bench {

Result<std::unique_ptr<FastFilter>> OpenBenchFastFilter(const std::string& redis_url);

}  // namespace idem::bench
