#include "redis/redis_test_support.h"

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <sstream>

#include "cache/redis/redis_url.h"

namespace idem::testing {

std::string RedisTestUrl() {
  const char* url = std::getenv("IDEM_TEST_REDIS_URL");
  return url ? url : "";
}

std::string UniqueKeyPrefix() {
  static std::atomic<int> n{0};
  return "idem-test-" + std::to_string(getpid()) + "-" + std::to_string(++n) + ":";
}

RedisFilterOptions TestFilterOptions(const std::string& prefix) {
  RedisFilterOptions o;
  o.key_prefix = prefix;
  o.client_name = "idem-test-" + std::to_string(getpid());
  o.reconnect_backoff_min_ms = 5;
  o.reconnect_backoff_max_ms = 50;
  return o;
}

std::unique_ptr<FastFilter> OpenFilterOrFail(const std::string& url, const RedisFilterOptions& options) {
  auto f = OpenRedisFilter(url, options);
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  return f.ok() ? std::move(*f) : nullptr;
}

RedisAdmin::RedisAdmin() {
  if (RedisTestUrl().empty()) return;  // the test skips; nothing to connect to
  auto e = redis::ParseRedisUrl(RedisTestUrl());
  if (!e.ok()) {
    ADD_FAILURE() << e.status().ToString();
    return;
  }
  ctx_ = redisConnect(e->host.c_str(), e->port);
  if (!ctx_ || ctx_->err) {
    ADD_FAILURE() << "admin connection to Redis failed: " << (ctx_ ? ctx_->errstr : "out of memory");
    if (ctx_) redisFree(ctx_);
    ctx_ = nullptr;
  }
}

RedisAdmin::~RedisAdmin() {
  if (ctx_) redisFree(ctx_);
}

std::string RedisAdmin::Call(const std::vector<std::string>& args) {
  if (!ctx_) return "ERR no admin connection";
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  auto* r = static_cast<redisReply*>(redisCommandArgv(ctx_, static_cast<int>(argv.size()), argv.data(), lens.data()));
  if (!r) return std::string("ERR ") + ctx_->errstr;
  std::string out;
  switch (r->type) {
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_ERROR: out.assign(r->str, r->len); break;
    case REDIS_REPLY_INTEGER: out = std::to_string(r->integer); break;
    case REDIS_REPLY_NIL: out = "(nil)"; break;
    case REDIS_REPLY_ARRAY: out = "(array " + std::to_string(r->elements) + ")"; break;
  }
  freeReplyObject(r);
  return out;
}

int RedisAdmin::DeleteKeysWithPrefix(const std::string& prefix) {
  if (!ctx_) return 0;
  int deleted = 0;
  std::string cursor = "0";
  do {
    auto* r = static_cast<redisReply*>(redisCommand(ctx_, "SCAN %s MATCH %b* COUNT 1000", cursor.c_str(),
                                                    prefix.data(), prefix.size()));
    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) {
      ADD_FAILURE() << "SCAN failed";
      if (r) freeReplyObject(r);
      return deleted;
    }
    cursor.assign(r->element[0]->str, r->element[0]->len);
    for (size_t i = 0; i < r->element[1]->elements; ++i) {
      const redisReply* k = r->element[1]->element[i];
      deleted += Call({"DEL", std::string(k->str, k->len)}) == "1";
    }
    freeReplyObject(r);
  } while (cursor != "0");
  return deleted;
}

std::vector<std::string> ClientIdsNamed(RedisAdmin& admin, const std::string& name) {
  std::vector<std::string> ids;
  std::istringstream lines(admin.Call({"CLIENT", "LIST"}));
  for (std::string line; std::getline(lines, line);) {
    if (line.find(" name=" + name + " ") == std::string::npos) continue;
    size_t id = line.find("id=");
    if (id == 0) ids.push_back(line.substr(3, line.find(' ') - 3));
  }
  return ids;
}

int RedisAdmin::KillClientsNamed(const std::string& name) {
  int killed = 0;
  for (const std::string& id : ClientIdsNamed(*this, name)) killed += Call({"CLIENT", "KILL", "ID", id}) == "1";
  return killed;
}

}  // namespace idem::testing
