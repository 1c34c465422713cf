#include "harness/fast_filter_factory.h"

namespace idem::bench {

Result<std::unique_ptr<FastFilter>> OpenBenchFastFilter(const std::string& redis_url) {
  FastFilterUrlOptions options;
  options.key_prefix = "idem-bench:";  // apart from any real consumer's keys in the same Redis
  return OpenFastFilter(redis_url, options, Env::Default());
}

}  // namespace idem::bench
