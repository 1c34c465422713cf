// The services a payments handler calls outside its database: the bank and the
// user-notice service. Each call carries the idempotency key, as an
// `Idempotency-Key` header would, so the callee can deduplicate too:
// a handler whose transaction rolls back and runs again calls them again.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "idem/env.h"
#include "idem/status.h"

namespace idem::payments {

struct Notice {
  std::string idempotency_key;  // "" when the caller has none (the naive consumer)
  std::string event_key;        // NoticeKey(kind, business id)
  std::string user_id;
  std::string order_no;
  std::string kind;  // PAY_SUCCESS, REFUND, SHIPPED
};

class Downstream {
 public:
  virtual ~Downstream() = default;
  // Confirms a debit with the bank (8–12 s in the incident). The bank charges
  // once per non-empty key; every keyless call is a charge of its own.
  virtual Status ConfirmDebit(const std::string& idempotency_key, const std::string& payment_id,
                              int64_t amount_cents) = 0;
  // Sends a notice to the user (the incident's in-app message). A client library
  // may throw on a transport failure; handlers let that propagate to the
  // pipeline (idem) or the listener container (naive), which is what the
  // incident's code did.
  virtual Status SendNotice(const Notice& notice) = 0;
};

// What the bank and the notice service saw, for reports.
struct DownstreamStats {
  int64_t debit_calls = 0;
  int64_t debits_charged = 0;  // after the bank's deduplication by key
  int64_t notice_calls = 0;
  int64_t notices_delivered = 0;  // after the notice service's deduplication by key
};

// A deterministic stand-in: latency through Env, faults from a plan.
class SimulatedDownstream final : public Downstream {
 public:
  struct Faults {
    std::map<std::string, int64_t> slow_debit_ms;  // payment_id → how long the bank takes
    std::set<std::string> notice_throws_once;      // event keys whose first notice throws
  };
  SimulatedDownstream(Env* env, Faults faults) : env_(env), faults_(std::move(faults)) {}

  Status ConfirmDebit(const std::string& idempotency_key, const std::string& payment_id,
                      int64_t amount_cents) override;
  Status SendNotice(const Notice& notice) override;

  const DownstreamStats& stats() const { return stats_; }

 private:
  Env* env_;
  Faults faults_;
  std::set<std::string> debit_keys_, notice_keys_, notices_thrown_;
  DownstreamStats stats_;
};

}  // namespace idem::payments
