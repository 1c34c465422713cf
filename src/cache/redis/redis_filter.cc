// The Redis fast filter. See include/idem/redis_filter.h for the contract.
#include "idem/redis_filter.h"

#include <algorithm>

#include "cache/redis/redis_conn.h"
#include "cache/redis/redis_url.h"

namespace idem {
namespace {

// Values: "P:<fingerprint>" while a worker processes the key, "D:<fingerprint>"
// once its effects are committed. The fingerprint lets a same-key, different-
// payload message through to the database, which reports the conflict.
std::string Processing(const std::string& fingerprint) { return "P:" + fingerprint; }
std::string Done(const std::string& fingerprint) { return "D:" + fingerprint; }

bool IsStatusOk(const redisReply& r) {
  return r.type == REDIS_REPLY_STATUS && std::string_view(r.str, r.len) == "OK";
}

// What another worker's marker means for our request.
FilterVerdict Judge(const redisReply& get, const std::string& fingerprint) {
  // Gone again between SET and GET (expired, evicted): hold the message back; it
  // returns after the lease and the database decides.
  if (get.type != REDIS_REPLY_STRING || get.len < 2) return FilterVerdict::kInFlight;
  const std::string_view value(get.str, get.len);
  if (value.substr(2) != fingerprint) return FilterVerdict::kDifferentPayload;
  return value[0] == 'D' ? FilterVerdict::kDone : FilterVerdict::kInFlight;
}

class RedisFilter final : public FastFilter {
 public:
  RedisFilter(redis::Endpoint endpoint, RedisFilterOptions options, Env* env)
      : prefix_(options.key_prefix), conn_(std::move(endpoint), std::move(options), env) {}

  Result<std::vector<FilterVerdict>> Mark(std::span<const FilterRequest> keys, int64_t lease_ms) override {
    if (keys.empty()) return std::vector<FilterVerdict>();
    const std::string lease = std::to_string(std::max<int64_t>(lease_ms, 1));  // PX 0 is an error
    std::vector<redis::Command> commands;
    commands.reserve(2 * keys.size());
    for (const FilterRequest& req : keys) {
      std::string k = prefix_ + req.key;
      // SET NX is the atomic claim; the GET right behind it tells a
      // finished key from one that another worker is still processing.
      commands.push_back({"SET", k, Processing(req.fingerprint), "NX", "PX", lease});
      commands.push_back({"GET", std::move(k)});
    }
    auto replies = conn_.RoundTrip(commands);
    if (!replies.ok()) return replies.status();
    std::vector<FilterVerdict> verdicts;
    verdicts.reserve(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      const redisReply& set = *(*replies)[2 * i];
      const redisReply& get = *(*replies)[2 * i + 1];
      verdicts.push_back(IsStatusOk(set) ? FilterVerdict::kNew : Judge(get, keys[i].fingerprint));
    }
    return verdicts;
  }

  Status Finish(std::span<const FilterRequest> done, int64_t ttl_ms,
                std::span<const std::string> release) override {
    std::vector<redis::Command> commands;
    const std::string ttl = std::to_string(std::max<int64_t>(ttl_ms, 1));
    for (const FilterRequest& d : done) commands.push_back({"SET", prefix_ + d.key, Done(d.fingerprint), "PX", ttl});
    if (!release.empty()) {
      redis::Command del{"DEL"};
      for (const std::string& key : release) del.push_back(prefix_ + key);
      commands.push_back(std::move(del));
    }
    if (commands.empty()) return Status::OK();
    return conn_.RoundTrip(commands).status();
  }

 private:
  std::string prefix_;
  redis::Conn conn_;
};

}  // namespace

Result<std::unique_ptr<FastFilter>> OpenRedisFilter(const std::string& url, const RedisFilterOptions& options,
                                                    Env* env) {
  auto endpoint = redis::ParseRedisUrl(url);
  if (!endpoint.ok()) return endpoint.status();
  if (options.client_name.find_first_of(" \n\r\t") != std::string::npos)
    return Status::InvalidArgument("Redis client_name '" + options.client_name + "' must not contain spaces");
  if (options.connect_timeout_ms <= 0 || options.command_timeout_ms <= 0)
    return Status::InvalidArgument("Redis connect and command timeouts must be positive");
  return std::unique_ptr<FastFilter>(
      std::make_unique<RedisFilter>(std::move(*endpoint), options, env ? env : Env::Default()));
}

}  // namespace idem
