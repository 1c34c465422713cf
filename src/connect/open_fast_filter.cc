// OpenFastFilter and the fast-filter schemes.
#include "connect/backend_openers.h"
#include "connect/known_schemes.h"

#pragma weak idem_open_redis_filter

namespace idem {
namespace connect {

const SchemeTable<FastFilterOpener>& FastFilterSchemes() {
  static const SchemeTable<FastFilterOpener> table{
      "fast filter",
      {
          {{{"redis://"}, "redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]", "the Redis fast filter", "IDEM_WITH_REDIS"},
           IDEM_LINKED_OPENER(idem_open_redis_filter)},
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
