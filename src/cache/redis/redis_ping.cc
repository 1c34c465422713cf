// PingRedis: one connection and one PING, for start-up checks.
#include "cache/redis/redis_conn.h"
#include "cache/redis/redis_url.h"
#include "idem/redis_filter.h"

namespace idem {

Status PingRedis(const std::string& url, const RedisFilterOptions& options) {
  auto endpoint = redis::ParseRedisUrl(url);
  if (!endpoint.ok()) return endpoint.status();
  redis::Conn conn(std::move(*endpoint), options, Env::Default());
  auto replies = conn.RoundTrip({{"PING"}});
  return replies.ok() ? Status::OK() : replies.status();
}

}  // namespace idem
