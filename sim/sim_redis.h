// SimRedis: a FastFilter with Redis's SET NX PX semantics that loses keys the
// ways Redis does — eviction, early expiry, failover to a replica that missed
// writes — and goes down for a while. Shared by all consumers; each consumer
// process talks to it through a Connection that dies with the process.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "idem/fast_filter.h"
#include "sim/faults.h"
#include "sim/incarnation.h"

namespace idem::sim {

class SimRedis {
 public:
  explicit SimRedis(FaultDice* dice) : dice_(dice) {}
  std::unique_ptr<FastFilter> Connect(const Incarnation* life);

  Result<std::vector<FilterVerdict>> Mark(std::span<const FilterRequest> requests, int64_t lease_ms);
  Status Finish(std::span<const FilterRequest> done, int64_t ttl_ms, std::span<const std::string> release);

 private:
  struct Entry {
    bool done = false;
    std::string fingerprint;
    int64_t expires_at_ms = 0;
  };
  Status Up();
  FaultDice* dice_;
  std::map<std::string, Entry> keys_;
  int64_t down_until_ms_ = 0;
};

}  // namespace idem::sim
