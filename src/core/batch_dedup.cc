#include "core/batch_dedup.h"

#include <string_view>
#include <unordered_map>

namespace idem {

void MarkInBatchCopies(std::vector<BatchItem>& items) {
  std::unordered_map<std::string_view, size_t> first_with_key;
  first_with_key.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    BatchItem& it = items[i];
    if (!it.Runnable()) continue;
    auto [pos, inserted] = first_with_key.emplace(it.key, i);
    if (inserted) continue;
    const BatchItem& primary = items[pos->second];
    if (primary.fingerprint == it.fingerprint)
      it.copy_of = pos->second;
    else
      it.Decide(Outcome::Conflict(Outcome::By::kPlan, "same key as message " + primary.msg->id +
                                                          " in this batch with a different payload"));
  }
}

void FollowPrimaries(std::vector<BatchItem>& items) {
  for (BatchItem& it : items) {
    if (!it.copy_of || it.decided()) continue;
    const BatchItem& p = items[*it.copy_of];
    if (!p.outcome || p.outcome->kind == DecisionKind::kReleased || p.outcome->kind == DecisionKind::kInFlight) {
      const Outcome po = p.outcome.value_or(Outcome::Release(Outcome::By::kCopy, "its primary is undecided", 0));
      it.Decide(Outcome::Release(Outcome::By::kCopy, po.reason, po.delay_ms));
    } else {
      it.Decide(Outcome::Duplicate(Outcome::By::kCopy, "copy of message " + p.msg->id + " in the same batch"));
    }
  }
}

}  // namespace idem
