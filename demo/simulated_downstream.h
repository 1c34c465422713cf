// SimulatedDownstream: a deterministic stand-in for the bank and the notice
// service in the demo and the simulator. Latency goes through Env; the faults
// come from a plan; each service deduplicates by idempotency key, as the real
// ones would, and counts what it saw.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "idem/env.h"
#include "payments/downstream.h"

namespace idem::demo {

// What the bank and the notice service saw, for reports.
struct DownstreamStats {
  int64_t debit_calls = 0;
  int64_t debits_charged = 0;  // after the bank's deduplication by key
  int64_t notice_calls = 0;
  int64_t notices_delivered = 0;  // after the notice service's deduplication by key
};

class SimulatedDownstream final : public payments::Downstream {
 public:
  struct Faults {
    std::map<std::string, int64_t> slow_debit_ms;  // payment_id → how long the bank takes
    std::set<std::string> notice_throws_once;      // event keys whose first notice throws
  };
  SimulatedDownstream(Env* env, Faults faults) : env_(env), faults_(std::move(faults)) {}

  Status ConfirmDebit(const std::string& idempotency_key, const std::string& payment_id,
                      int64_t amount_cents) override;
  Status SendNotice(const payments::Notice& notice) override;

  const DownstreamStats& stats() const { return stats_; }

 private:
  Env* env_;
  Faults faults_;
  std::set<std::string> debit_keys_, notice_keys_, notices_thrown_;
  DownstreamStats stats_;
};

}  // namespace idem::demo
