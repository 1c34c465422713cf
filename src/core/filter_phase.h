// The fast-filter phase of a batch: the optional filter (Redis, an LRU) marks
// the keys about to be claimed, or says they are DONE or in flight elsewhere,
// and learns after the commit what was applied.
#pragma once

#include <string>
#include <vector>

#include "core/batch_item.h"
#include "idem/decision.h"
#include "idem/fast_filter.h"

namespace idem {

class FilterPhase {
 public:
  // `filter` may be null (no filter: every call does nothing). It must outlive this object.
  FilterPhase(FastFilter* filter, FastFilterOptions options, const std::string* group)
      : filter_(filter), opt_(options), group_(group) {}

  // Marks the runnable items' keys and records each verdict (BatchItem::filter).
  // Returns false when the filter is down and the policy is fail-closed: then no
  // verdict is recorded, `*down` says why, and the caller gives the items back.
  // Fail-open, the items go on to the database with a note saying so.
  bool Mark(std::vector<BatchItem>& items, int64_t lease_ms, DecisionCounters* counters, std::string* down);

  // The outcomes the filter's verdicts give, once the batch's store phase has
  // committed: DONE is a duplicate, a live marker elsewhere is in flight.
  void DecideFromVerdicts(std::vector<BatchItem>& items, int64_t lease_ms) const;

  // Tells the filter which marked keys are applied (DONE) and which to forget.
  // A failure here is harmless: markers expire, and the database guard decides.
  void Finish(const std::vector<BatchItem>& items, bool committed);

 private:
  std::string FilterKey(const std::string& key) const {
    return std::to_string(group_->size()) + ":" + *group_ + ":" + key;
  }

  FastFilter* filter_;
  FastFilterOptions opt_;
  const std::string* group_;
};

}  // namespace idem
