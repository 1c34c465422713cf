// OpenFastFilter and the fast-filter schemes.
#include "connect/known_schemes.h"

#ifdef IDEM_WITH_REDIS
#include "idem/redis_filter.h"
#endif

namespace idem {
namespace connect {
namespace {

#ifdef IDEM_WITH_REDIS
Result<std::unique_ptr<FastFilter>> OpenRedisUrl(const std::string& url, const FastFilterUrlOptions& options,
                                                 Env* env) {
  RedisFilterOptions ro;
  ro.key_prefix = options.key_prefix;
  return OpenRedisFilter(url, ro, env);
}
#else
constexpr FastFilterOpener OpenRedisUrl = nullptr;
#endif

}  // namespace

const SchemeTable<FastFilterOpener>& FastFilterSchemes() {
  static const SchemeTable<FastFilterOpener> table{
      "fast filter",
      {
          {{{"redis://"}, "redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]", "the Redis fast filter", "IDEM_WITH_REDIS"},
           OpenRedisUrl},
      }};
  return table;
}

Status CheckFastFilterUrl(const std::string& url) { return CheckScheme(FastFilterSchemes(), url); }

}  // namespace connect

Result<std::unique_ptr<FastFilter>> OpenFastFilter(const std::string& url, const FastFilterUrlOptions& options,
                                                   Env* env) {
  auto open = connect::FindOpener(connect::FastFilterSchemes(), url);
  if (!open.ok()) return open.status();
  return (*open)(url, options, env);
}

}  // namespace idem
