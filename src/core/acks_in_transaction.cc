#include "core/acks_in_transaction.h"

namespace idem {

std::vector<size_t> AckedIfCommitted(const std::vector<BatchItem>& items, const std::vector<size_t>& runnable,
                                     const std::vector<Outcome>& outcomes) {
  std::vector<const Outcome*> eventual(items.size(), nullptr);
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].outcome) eventual[i] = &*items[i].outcome;
  for (size_t j = 0; j < runnable.size(); ++j) eventual[runnable[j]] = &outcomes[j];
  std::vector<size_t> acked;
  for (size_t i = 0; i < items.size(); ++i) {
    const Outcome* o = eventual[i];
    if (o) {
      if (o->kind == DecisionKind::kFirst || o->kind == DecisionKind::kDuplicate) acked.push_back(i);
      continue;
    }
    // A copy takes its primary's fate: a duplicate ack unless the primary goes back undecided (FollowPrimaries).
    if (!items[i].copy_of) continue;
    const Outcome* p = eventual[*items[i].copy_of];
    if (p && p->kind != DecisionKind::kReleased && p->kind != DecisionKind::kInFlight) acked.push_back(i);
  }
  return acked;
}

}  // namespace idem
