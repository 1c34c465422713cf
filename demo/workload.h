// The seeded duplicate workload: the payments business plus one
// cause of redelivery per scenario. The same seed, cause and size
// always give the same workload, byte for byte: every random choice is drawn
// from a Draw. The workload also carries what a correct run must end with
// (the oracle), so a run can be judged from the database alone.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "demo/faults.h"
#include "payments/schema.h"

namespace idem::demo {

enum class Cause {
  kIncident,          // incident 001: a notice throws after the charge, AUTO ack requeues it, a second instance charges again
  kProducerResend,    // The producer resends after a timeout, with the same and with a new message id
  kCrashBeforeAck,    // The consumer dies after its commit, before the ack
  kVisibilityTimeout, // Processing outlives the visibility timeout; a second consumer takes over
  kThrowAfterEffect,  // A step throws after a partial side effect; the message is requeued
  kRebalance,         // The assignment moves to a second consumer; uncommitted work is consumed again
  kOutOfOrder,        // Events arrive out of order; a late PAID after SHIPPED
};

struct ScenarioInfo {
  Cause cause;
  const char* id;     // "001", "A1" … "A6"
  const char* name;   // short, for a table row
  const char* story;  // one sentence, for --help and the JSON
};

// In the order the demo runs them: the incident first, then A1 … A6.
const std::vector<ScenarioInfo>& Scenarios();
const ScenarioInfo& InfoOf(Cause cause);

// How to tell from the database that an event took effect.
enum class EffectKind {
  kLedger,     // a pay_account_flows row (biz_no = key, type = key2)
  kStockMove,  // a pay_stock_moves row (order_no = key)
  kPoints,     // a pay_points row (payment_id = key, scene = key2)
  kFinished,   // only the order's state (order_no = key); judged by the state checks
};

// One business event the producer means to publish once.
struct BusinessEvent {
  std::string topic;
  std::string payload;
  int64_t at_ms = 0;  // when the producer publishes it, from the start of the run
  EffectKind effect = EffectKind::kLedger;
  std::string key, key2;
  // An event the service must refuse (an illegal transition): it has to end in
  // the terminal queue with a reason containing `expect_reason`.
  bool expect_parked = false;
  std::string expect_reason;
};

// One copy the producer hands to the broker. Resends are extra copies of the same event.
struct Publication {
  size_t event = 0;        // index into Workload::events
  std::string message_id;  // the broker id; a resend keeps it or gets a new one
  int64_t at_ms = 0;
};

// What a correct run ends with.
struct Expected {
  std::map<std::string, int64_t> balance_cents;  // per user
  std::map<std::string, std::string> state;      // per order
  std::map<std::string, int64_t> stock;          // per sku
  int64_t flows = 0, points = 0, stock_moves = 0, notices = 0;
  int64_t effects() const { return flows + points + stock_moves + notices; }
};

struct Workload {
  Cause cause = Cause::kIncident;
  uint64_t seed = 0;
  int64_t start_ms = 0;   // the simulated wall clock at the start of the run
  size_t consumers = 1;   // consumer instances reading the queue
  std::vector<payments::AccountSeed> accounts;
  std::vector<payments::SkuSeed> skus;
  std::vector<payments::OrderSeed> orders;
  std::vector<BusinessEvent> events;
  std::vector<Publication> publications;  // in publishing order (by at_ms)
  FaultPlan faults;
  Expected expected;
  std::string incident_payment_id;  // the payment of incident 001 ("" in other scenarios)
};

struct WorkloadOptions {
  uint64_t seed = 1;
  size_t events = 200;  // business events to publish (before the cause adds copies); at least 10
};

// 2026-09-28 10:00:00 +08:00, the morning of the incident.
inline constexpr int64_t kIncidentMorningMs = 1'790'560'800'000;

Workload MakeWorkload(Cause cause, const WorkloadOptions& options);

}  // namespace idem::demo
