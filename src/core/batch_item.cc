#include "core/batch_item.h"

namespace idem {

Decision BatchItem::ToDecision(const std::string& group) const {
  Decision d;
  d.consumer_group = group;
  d.topic = msg->topic;
  d.key = key;
  d.message_id = msg->id;
  d.attempt = attempt;
  d.delivery_count = msg->delivery_count;
  d.reason = reason;
  d.delay_ms = delay_ms;
  switch (plan) {
    case Plan::kRun: d.kind = DecisionKind::kFirst; break;
    case Plan::kDuplicate:
    case Plan::kCopyOf: d.kind = DecisionKind::kDuplicate; break;
    case Plan::kConflict: d.kind = DecisionKind::kConflict; break;
    case Plan::kRetry:
      d.kind = DecisionKind::kRetry;
      d.rung = attempt;
      break;
    case Plan::kPark: d.kind = DecisionKind::kParked; break;
    case Plan::kRelease: d.kind = DecisionKind::kReleased; break;
    case Plan::kInFlight: d.kind = DecisionKind::kInFlight; break;
  }
  return d;
}

}  // namespace idem
