#include "core/batch_dedup.h"

#include <string_view>
#include <unordered_map>

namespace idem {
namespace {

bool Undecided(const BatchItem& p) {
  return !p.outcome || p.outcome->kind == DecisionKind::kReleased || p.outcome->kind == DecisionKind::kInFlight;
}

Outcome ReleasedWith(const BatchItem& p) {
  const Outcome po = p.outcome.value_or(Outcome::Release(Outcome::By::kCopy, "its primary is undecided", 0));
  return Outcome::Release(Outcome::By::kCopy, po.reason, po.delay_ms);
}

}  // namespace

void MarkInBatchCopies(std::vector<BatchItem>& items) {
  std::unordered_map<std::string_view, size_t> first_with_key;
  first_with_key.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    BatchItem& it = items[i];
    if (!it.Runnable()) continue;
    auto [pos, inserted] = first_with_key.emplace(it.key, i);
    if (inserted) continue;
    BatchItem& primary = items[pos->second];
    if (primary.fingerprint == it.fingerprint) {
      it.copy_of = pos->second;
    } else {
      it.variant_of = pos->second;
      primary.has_variants = true;
    }
  }
}

void JudgeVariants(std::vector<BatchItem>& items, int64_t now_ms, const RetryPolicy& retry) {
  for (BatchItem& it : items) {
    if (!it.variant_of || it.decided()) continue;
    const BatchItem& p = items[*it.variant_of];
    if (Undecided(p)) {
      it.Decide(ReleasedWith(p));
    } else if (p.found) {
      // The key had a record before this batch, and the primary's run (if any)
      // never changed what a different payload would be judged against unless
      // the verdict would run the handler: then this one comes back for a batch
      // of its own, where its claim sees the record as the primary left it.
      const ClaimVerdict v = ClassifyClaim(ClaimResult{false, *p.found}, it.fingerprint,
                                           it.msg->headers.count(kReplayHeader) > 0, now_ms, retry);
      if (v.Runs())
        it.Decide(Outcome::Release(Outcome::By::kCopy,
                                   "its key's record was taken over by message " + p.msg->id + " in this batch", 0));
      else
        it.Decide(v.ToOutcome());
    } else {
      it.Decide(Outcome::Conflict(Outcome::By::kPlan, "same key as message " + p.msg->id +
                                                          " in this batch with a different payload"));
    }
  }
}

void FollowPrimaries(std::vector<BatchItem>& items) {
  for (BatchItem& it : items) {
    if (!it.copy_of || it.decided()) continue;
    const BatchItem& p = items[*it.copy_of];
    if (Undecided(p))
      it.Decide(ReleasedWith(p));
    else
      it.Decide(Outcome::Duplicate(Outcome::By::kCopy, "copy of message " + p.msg->id + " in the same batch"));
  }
}

}  // namespace idem
