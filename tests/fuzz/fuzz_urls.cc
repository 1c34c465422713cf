// The URL parsers on arbitrary text: store URLs (sqlite:, postgresql://),
// broker URLs (queue files, amqp://) and Redis URLs. Parsing only: nothing is
// opened or connected. (A postgresql:// URL's body is libpq's to read.)
//
// Beyond "no crash": what a parser accepts satisfies its documented contract,
// and a Redis endpoint written back as a URL parses to the same endpoint.
#include <cctype>
#include <cstdint>
#include <string>

#include "fuzz_text.h"
#include "source/broker_url.h"
#include "store/store_url.h"
#ifdef IDEM_FUZZ_AMQP
#include "idem/rabbitmq.h"
#endif
#ifdef IDEM_FUZZ_REDIS
#include "cache/redis/redis_url.h"
#endif

namespace {

using idem::fuzz::Check;

// A URL taken for a bare file path has no ':' before its first '/': anything
// else starts like a scheme and must be refused, never opened as a new file.
bool HasSchemePrefix(const std::string& url, const char* scheme) { return url.rfind(scheme, 0) == 0; }
bool ColonBeforeFirstSlash(const std::string& url) {
  const size_t colon = url.find(':');
  return colon != std::string::npos && colon < url.find('/');
}

void CheckStoreUrl(const std::string& url) {
  auto store = idem::ParseStoreUrl(url);
  if (store.ok() && store->kind == idem::StoreUrl::Kind::kSqlite) {
    Check(!store->path.empty() && store->path.find("://") == std::string::npos, "a bad SQLite path was accepted");
    Check(HasSchemePrefix(url, "sqlite:") || !ColonBeforeFirstSlash(url),
          "an unknown scheme was taken for a SQLite file name");
  }
}

void CheckBrokerUrl(const std::string& url) {
  auto broker = idem::ParseBrokerUrl(url);
  if (!broker.ok()) return;
  if (broker->kind == idem::BrokerUrl::Kind::kEmbedded) {
    Check(!broker->path.empty() && broker->path.find("://") == std::string::npos, "a bad queue path was accepted");
    Check(HasSchemePrefix(url, "queue:") || !ColonBeforeFirstSlash(url),
          "an unknown scheme was taken for a queue file name");
    return;
  }
#ifdef IDEM_FUZZ_AMQP
  auto amqp = idem::ParseAmqpUrl(url);
  if (!amqp.ok()) return;
  Check(!amqp->queue.empty(), "an amqp:// URL without a queue was accepted");
  Check(amqp->prefetch >= 1 && amqp->prefetch <= 65535, "an amqp:// prefetch out of range was accepted");
  Check(amqp->port > 0 && amqp->port <= 65535, "an amqp:// port out of range was accepted");
  for (int64_t ms : amqp->known_wait_ms) Check(ms > 0, "a non-positive known_wait_ms was accepted");
#endif
}

#ifdef IDEM_FUZZ_REDIS
std::string PercentEncoded(const std::string& s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

void CheckRedisUrl(const std::string& url) {
  auto e = idem::redis::ParseRedisUrl(url);
  if (!e.ok()) return;
  Check(!e->host.empty(), "a Redis URL without a host was accepted");
  Check(e->port >= 1 && e->port <= 65535, "a Redis port out of range was accepted");
  Check(e->db >= 0, "a negative Redis database was accepted");
  // Written back: user:password@host:port/db, with an IPv6 host in brackets.
  const bool bracket = e->host.find(':') != std::string::npos || e->host[0] == '[';
  if (bracket && e->host.find(']') != std::string::npos) return;  // not expressible either way
  std::string again = "redis://";
  if (!e->user.empty() || !e->password.empty()) again += PercentEncoded(e->user) + ":" + PercentEncoded(e->password) + "@";
  again += bracket ? "[" + e->host + "]" : e->host;
  again += ":" + std::to_string(e->port) + "/" + std::to_string(e->db);
  auto back = idem::redis::ParseRedisUrl(again);
  Check(back.ok(), "a Redis endpoint written back as a URL does not parse");
  Check(back->host == e->host && back->port == e->port && back->user == e->user && back->password == e->password &&
            back->db == e->db,
        "a Redis endpoint written back as a URL parses differently");
}
#endif

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string url(reinterpret_cast<const char*>(data), size);
  CheckStoreUrl(url);
  CheckBrokerUrl(url);
#ifdef IDEM_FUZZ_REDIS
  CheckRedisUrl(url);
#endif
  return 0;
}
