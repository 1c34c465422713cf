// PartitionOffsets: what one consumer knows about the offsets of one partition
// it holds — which it handed out, which are settled, and the offset it may commit.
//
// The commit point is the offset after the highest contiguous settled message:
// every offset below it was settled by this consumer, or was never delivered to
// it (a gap: transaction markers, compacted records, or below where it started).
// It never passes an unsettled offset. No librdkafka types: pure bookkeeping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>

namespace idem::kafka {

class PartitionOffsets {
 public:
  // `delivered_before`: the previous owner had handed out every offset below it
  // (read from the committed offset's metadata); copies below it are redeliveries.
  explicit PartitionOffsets(int64_t generation, int64_t delivered_before = -1)
      : generation_(generation), delivered_before_(delivered_before) {}

  struct Delivery {
    bool skip = false;         // already settled here (fetched again after a seek back): do not hand out
    bool redelivered = false;  // handed out before, by this consumer or the previous owner
    int count = 1;             // how many times this consumer handed it out (plus one if the previous owner did)
  };
  // Records that `offset` is handed out (again).
  Delivery Fetched(int64_t offset);
  // Records that the message at `offset` is settled. Settling one that is not
  // unsettled (already settled, never fetched) does nothing.
  void Settled(int64_t offset);

  // The offset to commit, or -1 when there is nothing beyond what was committed.
  int64_t CommitPoint() const { return floor_ > committed_ ? floor_ : -1; }
  void Committed(int64_t offset) { committed_ = offset > committed_ ? offset : committed_; }
  // The lowest unsettled offset, or -1 when none is.
  int64_t LowestUnsettled() const { return unsettled_.empty() ? -1 : *unsettled_.begin(); }
  // The offset after the highest one handed out (for the commit metadata).
  int64_t DeliveredUpTo() const { return max_fetched_ + 1 > delivered_before_ ? max_fetched_ + 1 : delivered_before_; }
  size_t UnsettledCount() const { return unsettled_.size(); }
  // The offset after the highest one this consumer handed out (0 if none).
  int64_t NextToFetch() const { return max_fetched_ + 1; }

  // Gives back what was handed out and is not settled, keeping the partition:
  // receipts of the old generation are stale from now on, and the unsettled
  // offsets count as handed out once more when they are fetched again.
  void Rewind(int64_t generation) { generation_ = generation; }

  // The assignment this bookkeeping belongs to; every receipt carries it, and
  // one of another assignment (the partition moved, or was abandoned) is stale.
  int64_t generation() const { return generation_; }

 private:
  void Advance();

  int64_t generation_;
  int64_t delivered_before_;
  int64_t floor_ = -1;      // every offset below is settled here or a gap
  int64_t committed_ = -1;  // the last commit point the broker accepted
  int64_t max_fetched_ = -1;
  int64_t max_settled_ = -1;
  std::set<int64_t> unsettled_;      // handed out, not settled (held, released or abandoned)
  std::set<int64_t> settled_ahead_;  // settled, at or above floor_ (skipped when fetched again)
  std::map<int64_t, int> deliveries_;  // hand-outs of each unsettled offset
};

}  // namespace idem::kafka
