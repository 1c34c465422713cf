// Turns a clean business workload into one that suffers a given cause of
// redelivery: extra copies, moved events, and a fault plan.
#pragma once

#include <optional>
#include <vector>

#include "demo/draw.h"
#include "demo/workload.h"

namespace idem::demo::detail {

// The events of one order, by index into Workload::events.
struct OrderEvents {
  size_t pay = 0;
  std::optional<size_t> ship, finish, refund;
  size_t last = 0;  // the last event the order's story publishes
};

// The broker id of the first copy of event `i`.
std::string MessageId(size_t event);

// Edits event times, appends extra copies to `w.publications` (never the first
// copies: MakeWorkload adds those afterwards) and fills `w.faults` and `w.consumers`.
void ApplyCause(Cause cause, Draw& draw, const std::vector<OrderEvents>& orders, Workload& w);

}  // namespace idem::demo::detail
