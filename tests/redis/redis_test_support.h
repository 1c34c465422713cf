// Helpers for tests against the redis-server that scripts/servers/redis.sh
// starts (its URL in IDEM_TEST_REDIS_URL).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "idem/fast_filter.h"
#include "idem/redis_filter.h"

struct redisContext;  // hiredis

namespace idem::testing {

// IDEM_TEST_REDIS_URL, or "" when the tests should skip.
std::string RedisTestUrl();
inline constexpr const char* kNoRedis =
    "IDEM_TEST_REDIS_URL is not set: run scripts/test.sh, or scripts/servers/redis.sh start and export the URL "
    "it writes to build/test-servers.env";

// A key prefix no other test (or process) uses, so tests can share one server.
std::string UniqueKeyPrefix();

// Options for tests: a private key prefix and short reconnect back-off.
RedisFilterOptions TestFilterOptions(const std::string& prefix);

// Opens a filter or records a test failure and returns null.
std::unique_ptr<FastFilter> OpenFilterOrFail(const std::string& url, const RedisFilterOptions& options);

// A plain connection to the test server, for looking behind the filter's back.
// Each call returns the reply as text: a string, a number, "(nil)" or "ERR…".
class RedisAdmin {
 public:
  RedisAdmin();
  ~RedisAdmin();
  bool ok() const { return ctx_ != nullptr; }
  std::string Call(const std::vector<std::string>& args);
  // Deletes every key starting with `prefix` (what a flush, eviction or failover
  // would do to them). Returns how many were deleted.
  int DeleteKeysWithPrefix(const std::string& prefix);
  // Closes the connections whose CLIENT SETNAME is `name`. Returns how many.
  int KillClientsNamed(const std::string& name);

 private:
  redisContext* ctx_ = nullptr;
};

// The ids (in the test server) of the clients whose name is `name`.
std::vector<std::string> ClientIdsNamed(RedisAdmin& admin, const std::string& name);

}  // namespace idem::testing
