// The Redis fast filter's entry in idem::connect's fast-filter table (see
// connect/backend_openers.h): redis:// URLs.
#include "connect/backend_openers.h"
#include "idem/redis_filter.h"

namespace {

idem::Result<std::unique_ptr<idem::FastFilter>> OpenRedisUrl(const std::string& url,
                                                             const idem::FastFilterUrlOptions& options,
                                                             idem::Env* env) {
  idem::RedisFilterOptions ro;
  ro.key_prefix = options.key_prefix;
  return idem::OpenRedisFilter(url, ro, env);
}

}  // namespace

extern "C" const idem::connect::FastFilterOpener idem_open_redis_filter = &OpenRedisUrl;
