#include "harness/fast_filter_factory.h"

#ifdef IDEM_BENCH_WITH_REDIS
#include "idem/redis_filter.h"
#endif

namespace idem::bench {

Result<std::unique_ptr<FastFilter>> OpenBenchFastFilter(const std::string& redis_url) {
#ifdef IDEM_BENCH_WITH_REDIS
  RedisFilterOptions options;
  options.key_prefix = "idem-bench:";  // apart from any real consumer's keys in the same Redis
  return OpenRedisFilter(redis_url, options);
#else
  return Status::InvalidArgument("--redis-url " + redis_url +
                                 " needs the Redis fast filter, which this build leaves out: build with the "
                                 "Redis filter (src/cache/redis, -DIDEM_WITH_REDIS=ON) and run again");
#endif
}

}  // namespace idem::bench
