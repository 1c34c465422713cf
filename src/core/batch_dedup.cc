#include "core/batch_dedup.h"

#include <string_view>
#include <unordered_map>

namespace idem {

void MarkInBatchCopies(std::vector<BatchItem>& items) {
  std::unordered_map<std::string_view, size_t> first_with_key;
  first_with_key.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    BatchItem& it = items[i];
    if (it.plan != BatchItem::Plan::kRun) continue;
    auto [pos, inserted] = first_with_key.emplace(it.key, i);
    if (inserted) continue;
    const BatchItem& primary = items[pos->second];
    if (primary.fingerprint == it.fingerprint) {
      it.plan = BatchItem::Plan::kCopyOf;
      it.primary = pos->second;
    } else {
      it.Conflict("same key as message " + primary.msg->id + " in this batch with a different payload");
      it.decided_without_db = true;
    }
  }
}

void FollowPrimaries(std::vector<BatchItem>& items) {
  for (BatchItem& it : items) {
    if (it.plan != BatchItem::Plan::kCopyOf) continue;
    const BatchItem& p = items[it.primary];
    if (p.plan == BatchItem::Plan::kRelease || p.plan == BatchItem::Plan::kInFlight)
      it.Release(p.reason, p.delay_ms);
    else
      it.Duplicate("copy of message " + p.msg->id + " in the same batch");
  }
}

}  // namespace idem
