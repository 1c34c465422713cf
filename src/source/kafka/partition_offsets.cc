#include "source/kafka/partition_offsets.h"

namespace idem::kafka {

PartitionOffsets::Delivery PartitionOffsets::Fetched(int64_t offset) {
  Delivery d;
  if ((floor_ >= 0 && offset < floor_) || settled_ahead_.count(offset)) {
    d.skip = true;
    return d;
  }
  unsettled_.insert(offset);
  int& n = deliveries_[offset];
  ++n;
  if (offset > max_fetched_) max_fetched_ = offset;
  const bool previous_owner = offset < delivered_before_;
  d.count = n + (previous_owner ? 1 : 0);
  d.redelivered = d.count > 1;
  return d;
}

void PartitionOffsets::Settled(int64_t offset) {
  if (!unsettled_.erase(offset)) return;
  deliveries_.erase(offset);
  settled_ahead_.insert(offset);
  if (offset > max_settled_) max_settled_ = offset;
  Advance();
}

void PartitionOffsets::Advance() {
  // Below the lowest unsettled offset everything handed out is settled; with
  // nothing unsettled, everything up to the highest settled one is.
  const int64_t floor = unsettled_.empty() ? max_settled_ + 1 : *unsettled_.begin();
  if (floor > floor_) floor_ = floor;
  settled_ahead_.erase(settled_ahead_.begin(), settled_ahead_.lower_bound(floor_));
}

}  // namespace idem::kafka
