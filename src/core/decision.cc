#include "idem/decision.h"

#include <nlohmann/json.hpp>

namespace idem {

const char* DecisionName(DecisionKind k) {
  switch (k) {
    case DecisionKind::kFirst: return "FIRST";
    case DecisionKind::kDuplicate: return "DUPLICATE";
    case DecisionKind::kConflict: return "CONFLICT";
    case DecisionKind::kRetry: return "RETRY";
    case DecisionKind::kParked: return "PARKED";
    case DecisionKind::kReleased: return "RELEASED";
    case DecisionKind::kInFlight: return "IN_FLIGHT";
  }
  return "UNKNOWN";
}

std::string DecisionToJson(const Decision& d) {
  using nlohmann::json;
  json j;
  j["ts_ms"] = d.at_ms;
  j["decision"] = DecisionName(d.kind);
  j["group"] = d.consumer_group;
  j["topic"] = d.topic;
  j["key"] = d.key;
  j["msg_id"] = d.message_id;
  j["attempt"] = d.attempt;
  j["delivery"] = d.delivery_count;
  if (!d.reason.empty()) j["reason"] = d.reason;
  if (d.kind == DecisionKind::kRetry) j["rung"] = d.rung;
  if (d.delay_ms) j["delay_ms"] = d.delay_ms;
  j["latency_us"] = d.latency_us;
  if (d.transaction_tries > 1) j["tx_tries"] = d.transaction_tries;
  // Keys and ids come from the broker and may hold invalid UTF-8: replace, never throw.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

void DecisionCounters::Count(DecisionKind k) {
  switch (k) {
    case DecisionKind::kFirst: first++; break;
    case DecisionKind::kDuplicate: duplicate++; break;
    case DecisionKind::kConflict: conflict++; break;
    case DecisionKind::kRetry: retried++; break;
    case DecisionKind::kParked: parked++; break;
    case DecisionKind::kReleased: released++; break;
    case DecisionKind::kInFlight: in_flight++; break;
  }
}

double DecisionCounters::DuplicateRatio() const {
  int64_t r = received.load();
  return r == 0 ? 0.0 : static_cast<double>(duplicate.load()) / static_cast<double>(r);
}

}  // namespace idem
