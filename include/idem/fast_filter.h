// FastFilter: an optional first line in front of the durable guard.
//
// The pipeline marks the keys of a batch before touching the database. A key
// marked DONE was committed earlier, so its message is acknowledged as a
// duplicate without a database round trip. Everything else still goes through
// the consumption record: the filter may forget keys (eviction, expiry,
// failover) and that only costs a database lookup, never a duplicate effect.
//
//   Mark:   SET key "P:<fingerprint>" NX PX lease   (atomic; never EXISTS-then-SET)
//   Finish: committed → SET key "D:<fingerprint>" PX ttl; failed or undecided → DEL key
//
// The fingerprint travels with the marker so that the same key with a different
// payload is never waved through as a duplicate: it goes to the database, which
// reports the CONFLICT.
//
// DONE is written only after the commit, so a worker that crashes between mark
// and commit leaves a PROCESSING marker that expires with its lease: the
// message is held back until then, never lost.
//
// Operations: DONE keys are trusted without a database lookup, so a database
// restored from a backup (or reset) must be paired with deleting the filter's
// keys (their prefix), or copies of messages the restored database never saw
// would be acknowledged as duplicates.
//
// Thread safety: a FastFilter is used by one thread at a time (the Redis filter
// is one connection): give each pipeline its own. Several filters may share
// one Redis; the markers are what keeps their workers apart.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "idem/env.h"
#include "idem/status.h"

namespace idem {

enum class FilterVerdict {
  kNew,               // we set the PROCESSING marker: go on to the database
  kDone,              // committed before with the same fingerprint: acknowledge as a duplicate
  kInFlight,          // another worker holds the marker: hold the message back
  kDifferentPayload,  // a marker with another fingerprint: let the database decide (conflict)
};

struct FilterRequest {
  std::string key;
  std::string fingerprint;
};

class FastFilter {
 public:
  virtual ~FastFilter() = default;
  // One pipelined round trip for the whole batch. Results in key order.
  // A non-OK Status means the filter is unreachable; the outage policy decides.
  virtual Result<std::vector<FilterVerdict>> Mark(std::span<const FilterRequest> requests, int64_t lease_ms) = 0;
  // After the transaction: entries in `done` become DONE (with their fingerprint)
  // for `ttl_ms`; keys in `release` are deleted. One round trip.
  virtual Status Finish(std::span<const FilterRequest> done, int64_t ttl_ms,
                        std::span<const std::string> release) = 0;
};

// What to do while the filter is unreachable.
enum class FilterOutagePolicy {
  kClosed,  // stop taking messages: release them to the broker with back-off; resume when it is back
  kOpen,    // skip the filter; the database guard alone decides
};

struct FastFilterOptions {
  // How long a DONE key is kept. Must cover the longest retry window (checked
  // when the filter is attached). Default 24 h.
  int64_t ttl_ms = 24LL * 3600 * 1000;
  FilterOutagePolicy outage_policy = FilterOutagePolicy::kClosed;  // default closed: money first
};

struct FastFilterUrlOptions {
  // Prepended to every key the filter writes, so consumers that share one
  // server stay apart. Default "idem:".
  std::string key_prefix = "idem:";
};

// Opens a fast filter from a URL: "redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]"
// (the Redis filter, built with -DIDEM_WITH_REDIS=ON; see idem/redis_filter.h
// for its other options). Defined in the idem::connect library.
Result<std::unique_ptr<FastFilter>> OpenFastFilter(const std::string& url, const FastFilterUrlOptions& options,
                                                   Env* env);

}  // namespace idem
