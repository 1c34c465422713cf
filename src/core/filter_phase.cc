#include "core/filter_phase.h"

#include "core/run_handler.h"

namespace idem {

bool FilterPhase::Mark(std::vector<BatchItem>& items, int64_t lease_ms, DecisionCounters* counters,
                       std::string* down) {
  if (!filter_) return true;
  std::vector<size_t> idx;
  std::vector<FilterRequest> keys;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].Runnable()) continue;
    idx.push_back(i);
    keys.push_back({FilterKey(items[i].key), items[i].fingerprint});
  }
  if (keys.empty()) return true;
  Result<std::vector<FilterVerdict>> verdicts = Status::Unavailable("fast filter not asked");
  // A filter that throws is treated as one that is down: its outage policy decides.
  if (std::string thrown = ThrownBy([&] { verdicts = filter_->Mark(keys, lease_ms); }); !thrown.empty())
    verdicts = Status::Unavailable("the fast filter threw " + thrown);
  if (!verdicts.ok() || verdicts->size() != keys.size()) {
    counters->degraded += static_cast<int64_t>(keys.size());
    const std::string why = verdicts.ok() ? "fast filter answered for the wrong number of keys"
                                          : verdicts.status().ToString();
    if (opt_.outage_policy == FilterOutagePolicy::kOpen) {
      for (size_t i : idx) items[i].note = "degraded (fail-open): fast filter unavailable: " + why;
      return true;
    }
    *down = "degraded (fail-closed): fast filter unavailable: " + why;
    return false;
  }
  for (size_t j = 0; j < idx.size(); ++j) {
    BatchItem& it = items[idx[j]];
    it.filter = (*verdicts)[j];
    switch (*it.filter) {
      case FilterVerdict::kNew:
        it.filter_marked = true;
        counters->passed_to_db++;
        break;
      case FilterVerdict::kDone: counters->filtered++; break;
      case FilterVerdict::kInFlight: break;
      case FilterVerdict::kDifferentPayload:
        counters->passed_to_db++;  // the record decides: CONFLICT, or a retry of a released claim
        break;
    }
  }
  return true;
}

void FilterPhase::DecideFromVerdicts(std::vector<BatchItem>& items, int64_t lease_ms) const {
  for (BatchItem& it : items) {
    if (it.decided() || !it.filter) continue;
    if (*it.filter == FilterVerdict::kDone)
      it.Decide(Outcome::Duplicate(Outcome::By::kFilter, "already applied (fast filter)"));
    else if (*it.filter == FilterVerdict::kInFlight)
      it.Decide(Outcome::InFlight(Outcome::By::kFilter, "another worker holds the fast-filter marker", lease_ms));
  }
}

void FilterPhase::Finish(const std::vector<BatchItem>& items, bool committed) {
  if (!filter_) return;
  std::vector<FilterRequest> done;
  std::vector<std::string> release;
  for (const BatchItem& it : items) {
    if (!it.filter_marked) continue;
    const bool applied = committed && it.outcome && (it.outcome->kind == DecisionKind::kFirst ||
                                                     it.outcome->kind == DecisionKind::kDuplicate);
    if (applied) done.push_back({FilterKey(it.key), it.fingerprint});
    else release.push_back(FilterKey(it.key));
  }
  if (done.empty() && release.empty()) return;
  // A throw is as harmless as a failure.
  (void)ThrownBy([&] { (void)filter_->Finish(done, opt_.ttl_ms, release); });
}

}  // namespace idem
