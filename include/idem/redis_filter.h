// The Redis fast filter: a FastFilter over one redis-server connection.
//
// Keys are key_prefix + the idempotency key; values carry the payload's
// fingerprint: "P:<fingerprint>" while a worker processes the key,
// "D:<fingerprint>" once its effects are committed.
//   Mark:   per key, SET key "P:<fingerprint>" NX PX lease, then GET key, all
//           pipelined: one round trip per batch. SET answered OK → kNew.
//           Otherwise the GET decides: another fingerprint → kDifferentPayload
//           (the database reports the conflict); "D:" with ours → kDone; "P:"
//           with ours, or nothing (it expired in between) → kInFlight.
//   Finish: SET key "D:<fingerprint>" PX ttl for committed keys and one DEL for
//           the released ones, pipelined: one round trip.
//
// Redis is only a filter: losing its keys (eviction, expiry, restart, failover)
// costs a database lookup, never a duplicate effect. Any failure —
// refused connection, timeout, error reply — is an Unavailable status, and the
// pipeline's outage policy decides what to do. The broken connection
// is dropped and a later call reconnects; after a failed reconnect, calls fail
// fast until reconnect_backoff has passed, so an outage does not cost every
// batch a connect timeout.
//
// Thread safety: one connection: one filter per pipeline (thread), like a
// Store. OpenRedisFilter and PingRedis may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "idem/env.h"
#include "idem/fast_filter.h"
#include "idem/status.h"

namespace idem {

struct RedisFilterOptions {
  int64_t connect_timeout_ms = 500;          // one connection attempt; default 0.5 s
  int64_t command_timeout_ms = 1'000;        // one batch's round trip; default 1 s
  int64_t reconnect_backoff_min_ms = 100;    // wait after a failed reconnect; default 100 ms,
  int64_t reconnect_backoff_max_ms = 5'000;  //   doubling up to 5 s
  // Prepended to every key, so idem's keys stay apart from other data in a
  // shared Redis (and SCAN MATCH prefix* finds them). Default "idem:".
  std::string key_prefix = "idem:";
  // Sent with CLIENT SETNAME so CLIENT LIST tells idem's connections apart;
  // empty sends nothing (for ACL users without the CLIENT command). Default "idem".
  std::string client_name = "idem";
};

// `url`: redis://[[user]:password@]host[:port][/db] (port 6379 and db 0 by
// default). Only the URL is checked here: the first Mark connects, so a
// consumer may start while Redis is down and the outage policy applies.
// `env` (default Env::Default()) times the reconnect back-off.
Result<std::unique_ptr<FastFilter>> OpenRedisFilter(const std::string& url, const RedisFilterOptions& options = {},
                                                    Env* env = nullptr);

// Connects to `url` and sends PING, within the options' connect and command
// timeouts: OK when Redis answers, else Unavailable naming the address, what it
// waited for and what to check. For start-up checks: a filter connects lazily,
// and while Redis is unreachable its outage policy holds messages back quietly.
Status PingRedis(const std::string& url, const RedisFilterOptions& options = {});

}  // namespace idem
