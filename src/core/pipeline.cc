// The batch pipeline. See include/idem/pipeline.h for the contract.
//
// One batch, in phases:
//   Plan     without the database: payload limit, handler lookup, key and
//            fingerprint, in-batch copies. Bad input is parked here with its reason.
//   Filter   the optional fast filter marks the keys, or says DONE / in flight.
//   Decide   one transaction: claim every key at once and classify each record
//            (core/batch_item: ClassifyClaim), run the rest each under a savepoint
//            (ClassifyRun), complete the batch, commit. A deadlock reruns it; an
//            in-doubt commit is resolved by re-reading a record.
//   Follow   in-batch copies take their primary's fate.
//   Settle   one call to the source, mapping each message's plan.
//   Report   decisions and counters, once per message.
#include "idem/pipeline.h"

#include <algorithm>
#include <unordered_map>

#include "core/batch_dedup.h"
#include "core/batch_item.h"
#include "core/key.h"
#include "core/run_handler.h"

namespace idem {

class Pipeline::Impl {
 public:
  Impl(Source* source, Store* store, Env* env, PipelineOptions options)
      : source_(source), store_(store), env_(env), opt_(std::move(options)) {}

  Status Register(HandlerSpec spec) {
    if (spec.topic.empty()) return Status::InvalidArgument("a handler needs a topic");
    if (!spec.fn) return Status::InvalidArgument("the handler for topic '" + spec.topic + "' has no function");
    if (std::string why = opt_.retry.Validate(); !why.empty())
      return Status::InvalidArgument("retry policy: " + why);
    if (opt_.transaction_conflict_tries < 1 || opt_.transaction_conflict_wait_ms < 0)
      return Status::InvalidArgument("transaction_conflict_tries must be at least 1 and "
                                     "transaction_conflict_wait_ms not negative");
    if (handlers_.count(spec.topic))
      return Status::InvalidArgument("topic '" + spec.topic + "' already has a handler");
    std::string topic = spec.topic;
    handlers_.emplace(std::move(topic), std::move(spec));
    return Status::OK();
  }

  Status SetFastFilter(FastFilter* filter, FastFilterOptions options) {
    const int64_t window = opt_.retry.RetryWindowMs();
    if (filter && options.ttl_ms < window)
      return Status::InvalidArgument("fast filter TTL of " + std::to_string(options.ttl_ms / 1000) +
                                     " s is shorter than the retry window of " + std::to_string(window / 1000) +
                                     " s: a retried message could pass a forgotten key; raise ttl_ms");
    filter_ = filter;
    filter_opt_ = options;
    return Status::OK();
  }

  BatchReport RunOnce();
  DecisionSink sink_;
  DecisionCounters counters_;

 private:
  Result<std::vector<Message>> Poll();
  void Plan(std::vector<BatchItem>& items);
  void PlanOne(BatchItem& item);
  bool ApplyFilter(std::vector<BatchItem>& items);
  void FinishFilter(std::vector<BatchItem>& items, bool committed);
  std::string FilterKey(const std::string& key) const {
    return std::to_string(opt_.consumer_group.size()) + ":" + opt_.consumer_group + ":" + key;
  }
  // Returns false when the store failed and the undecided messages were released.
  bool Decide(std::vector<BatchItem>& items, int* transaction_tries, BatchReport* report);
  Status TransactRerunningConflicts(std::vector<BatchItem>& items, int* tries);
  Status Transact(std::vector<BatchItem>& items);
  Status ResolveInDoubt(std::vector<BatchItem>& items);
  void ReleaseUndecided(std::vector<BatchItem>& items, const std::string& reason);
  void Settle(const std::vector<BatchItem>& items, BatchReport* report);
  void Report(const std::vector<BatchItem>& items, int transaction_tries, BatchReport* report);
  int64_t Backoff();

  Source* source_;
  Store* store_;
  Env* env_;
  PipelineOptions opt_;
  std::unordered_map<std::string, HandlerSpec> handlers_;
  FastFilter* filter_ = nullptr;
  FastFilterOptions filter_opt_;
  int64_t unavailable_backoff_ms_ = 0;
};

void Pipeline::Impl::PlanOne(BatchItem& it) {
  const Message& m = *it.msg;
  if (m.payload.size() > opt_.max_payload_bytes) {
    it.Park("payload is " + std::to_string(m.payload.size()) + " bytes, over the limit of " +
            std::to_string(opt_.max_payload_bytes) + " (max_payload_bytes)");
    return;
  }
  auto h = handlers_.find(m.topic);
  if (h == handlers_.end()) {
    if (opt_.park_unknown_topics) it.Park("no handler is registered for topic '" + m.topic + "'");
    else it.Release("no handler for topic '" + m.topic + "'", opt_.retry.DelayAfter(1));
    return;
  }
  it.spec = &h->second;
  auto id = DeriveIdentity(m, *it.spec, JsonLimits{opt_.max_json_depth, opt_.max_payload_bytes});
  if (!id.ok()) {
    it.Park(id.status().message());
    return;
  }
  it.key = std::move(id->key);
  it.fingerprint = std::move(id->fingerprint);
  it.payload = std::move(id->payload);
  it.plan = BatchItem::Plan::kRun;
  it.decided_without_db = false;
}

void Pipeline::Impl::Plan(std::vector<BatchItem>& items) {
  for (BatchItem& it : items) {
    it.decided_without_db = true;  // until it is planned to run
    // Whatever the payload makes key derivation do, it costs this message only.
    if (std::string thrown = ThrownBy([&] { PlanOne(it); }); !thrown.empty()) {
      it.decided_without_db = true;
      it.Park("deriving the key and fingerprint threw " + thrown +
              "; a message that cannot be keyed is never processed without protection");
    }
  }
  if (opt_.protection) MarkInBatchCopies(items);  // unprotected, every copy runs
}

Status Pipeline::Impl::Transact(std::vector<BatchItem>& items) {
  std::vector<size_t> runnable;
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].plan == BatchItem::Plan::kRun) runnable.push_back(i);
  if (runnable.empty()) return Status::OK();

  auto tx_or = store_->Begin();
  if (!tx_or.ok()) return tx_or.status();
  StoreTx& tx = **tx_or;
  const int64_t now = env_->NowMs();
  const int64_t lease_until = now + opt_.lease_ms;

  if (opt_.protection) {
    std::vector<ClaimRequest> reqs;
    reqs.reserve(runnable.size());
    for (size_t i : runnable) reqs.push_back({items[i].key, items[i].fingerprint, items[i].msg->id});
    auto claims = tx.Claim(opt_.consumer_group, reqs, now, lease_until);
    if (!claims.ok()) return claims.status();
    for (size_t j = 0; j < runnable.size(); ++j) {
      BatchItem& it = items[runnable[j]];
      const ClaimVerdict v =
          ClassifyClaim((*claims)[j], it.fingerprint, it.msg->headers.count(kReplayHeader) > 0, now, opt_.retry);
      it.Apply(v);
      if (v.NotesDuplicate()) IDEM_RETURN_IF_ERROR(tx.NoteDuplicate(opt_.consumer_group, it.key, now));
      if (v.kind == ClaimVerdict::Kind::kTakeOver)
        IDEM_RETURN_IF_ERROR(tx.TakeOver(opt_.consumer_group, reqs[j], now, lease_until));
    }
  }

  std::vector<Completion> completions;
  completions.reserve(runnable.size());
  for (size_t i : runnable) {
    BatchItem& it = items[i];
    if (it.plan != BatchItem::Plan::kRun) continue;
    if (!opt_.protection) it.attempt = 1;  // no record, no count: the guard is off, so retries are not capped
    HandlerResult result;
    IDEM_RETURN_IF_ERROR(RunUnderSavepoint(it, tx, *env_, opt_.retry, &result));
    it.Apply(ClassifyRun(result, it.attempt, opt_.retry));
    completions.push_back({it.key, it.expected_status, it.reason, it.summary});
  }
  // One call for the batch (items are not touched again before it returns).
  if (opt_.protection) IDEM_RETURN_IF_ERROR(tx.Complete(opt_.consumer_group, completions, env_->NowMs()));

  Status s = tx.Commit();
  if (s.IsInDoubt()) return ResolveInDoubt(items);
  return s;
}

// A deadlock or serialization failure says nothing about the messages: the
// database rolled this transaction back (or must) so that a rival could go on.
// Run it again from the planned state, after a short random wait so the two do
// not meet in step again; the records were rolled back too, so no attempt is spent.
Status Pipeline::Impl::TransactRerunningConflicts(std::vector<BatchItem>& items, int* tries) {
  const std::vector<BatchItem> planned = items;
  for (*tries = 1;; ++*tries) {
    Status s = Transact(items);
    if (!s.IsTransactionConflict()) return s;
    if (*tries >= opt_.transaction_conflict_tries)
      return Status::TransactionConflict(s.message() + " (still after " + std::to_string(*tries) +
                                         " runs of the batch transaction; raise transaction_conflict_tries "
                                         "or look for transactions that lock the same rows in another order)");
    counters_.transaction_retries++;
    items = planned;
    const int64_t wait = opt_.transaction_conflict_wait_ms << std::min(*tries - 1, 20);
    env_->SleepMs(wait / 2 + static_cast<int64_t>(env_->Random64() % static_cast<uint64_t>(wait / 2 + 1)));
  }
}

// The COMMIT was sent and the answer lost. The records say what happened: the
// first record this batch changed shows our attempt count and status only if
// the commit landed (the whole batch commits or nothing does).
Status Pipeline::Impl::ResolveInDoubt(std::vector<BatchItem>& items) {
  for (BatchItem& it : items) {
    if (!it.ran) continue;
    auto rec = store_->ReadRecord(opt_.consumer_group, it.key);
    if (!rec.ok()) return Status::InDoubt("commit outcome unknown and the record cannot be read: " +
                                          rec.status().message());
    bool landed = rec->has_value() && (*rec)->attempts == it.attempt && (*rec)->status == it.expected_status &&
                  (*rec)->message_id == it.msg->id;
    if (landed) return Status::OK();
    return Status::Retryable("the commit did not land (record re-read after a lost COMMIT answer)");
  }
  return Status::OK();
}

// Returns false when the filter is down and the policy is fail-closed: then every
// runnable message has been released and the batch must stop here.
bool Pipeline::Impl::ApplyFilter(std::vector<BatchItem>& items) {
  if (!filter_ || !opt_.protection) return true;
  std::vector<size_t> idx;
  std::vector<FilterRequest> keys;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].plan != BatchItem::Plan::kRun) continue;
    idx.push_back(i);
    keys.push_back({FilterKey(items[i].key), items[i].fingerprint});
  }
  if (keys.empty()) return true;
  Result<std::vector<FilterVerdict>> verdicts = Status::Unavailable("fast filter not asked");
  // A filter that throws is treated as one that is down: its outage policy decides.
  if (std::string thrown = ThrownBy([&] { verdicts = filter_->Mark(keys, opt_.lease_ms); }); !thrown.empty())
    verdicts = Status::Unavailable("the fast filter threw " + thrown);
  if (!verdicts.ok() || verdicts->size() != keys.size()) {
    counters_.degraded += static_cast<int64_t>(keys.size());
    const std::string why = verdicts.ok() ? "fast filter answered for the wrong number of keys"
                                          : verdicts.status().ToString();
    if (filter_opt_.outage_policy == FilterOutagePolicy::kOpen) {
      for (size_t i : idx) items[i].reason = "degraded (fail-open): fast filter unavailable: " + why;
      return true;
    }
    const int64_t delay = Backoff();
    for (size_t i : idx) items[i].Release("degraded (fail-closed): fast filter unavailable: " + why, delay);
    return false;
  }
  for (size_t j = 0; j < idx.size(); ++j) {
    BatchItem& it = items[idx[j]];
    switch ((*verdicts)[j]) {
      case FilterVerdict::kNew:
        it.filter_marked = true;
        counters_.passed_to_db++;
        break;
      case FilterVerdict::kDone:
        it.Duplicate("already applied (fast filter)");
        it.filtered = true;
        counters_.filtered++;
        break;
      case FilterVerdict::kInFlight:
        it.InFlight("another worker holds the fast-filter marker", opt_.lease_ms);
        break;
      case FilterVerdict::kDifferentPayload:
        counters_.passed_to_db++;  // the record decides: CONFLICT, or a retry of a released claim
        break;
    }
  }
  return true;
}

void Pipeline::Impl::FinishFilter(std::vector<BatchItem>& items, bool committed) {
  if (!filter_) return;
  std::vector<FilterRequest> done;
  std::vector<std::string> release;
  for (BatchItem& it : items) {
    if (!it.filter_marked) continue;
    const bool applied = committed && (it.plan == BatchItem::Plan::kRun || it.applied_before);
    if (applied) done.push_back({FilterKey(it.key), it.fingerprint});
    else release.push_back(FilterKey(it.key));
  }
  if (done.empty() && release.empty()) return;
  // A failure here is harmless (a throw too): markers expire, and the database guard decides.
  (void)ThrownBy([&] { (void)filter_->Finish(done, filter_opt_.ttl_ms, release); });
}

void Pipeline::Impl::ReleaseUndecided(std::vector<BatchItem>& items, const std::string& reason) {
  const int64_t delay = Backoff();
  for (BatchItem& it : items) {
    if (it.decided_without_db || it.plan == BatchItem::Plan::kCopyOf) continue;  // copies follow their primary
    it.Release(reason, delay);
  }
}

int64_t Pipeline::Impl::Backoff() {
  unavailable_backoff_ms_ = unavailable_backoff_ms_ == 0
                                ? opt_.unavailable_backoff_min_ms
                                : std::min(unavailable_backoff_ms_ * 2, opt_.unavailable_backoff_max_ms);
  return unavailable_backoff_ms_;
}

void Pipeline::Impl::Settle(const std::vector<BatchItem>& items, BatchReport* report) {
  std::vector<Settlement> settlements;
  settlements.reserve(items.size());
  for (const BatchItem& it : items) settlements.push_back(it.ToSettlement());
  Status s;
  if (std::string thrown = ThrownBy([&] { s = source_->Settle(settlements); }); !thrown.empty())
    s = Status::Unavailable("the source threw " + thrown +
                            " while settling; the broker redelivers what it did not take");
  if (!s.ok()) report->status = s;
}

void Pipeline::Impl::Report(const std::vector<BatchItem>& items, int transaction_tries, BatchReport* report) {
  const int64_t now = env_->NowMs();
  const int64_t end_us = env_->MonotonicMicros();
  for (const BatchItem& it : items) {
    Decision d = it.ToDecision(opt_.consumer_group);
    d.at_ms = now;
    d.latency_us = end_us - it.polled_at_us;
    if (!it.decided_without_db) d.transaction_tries = transaction_tries;
    counters_.Count(d.kind);
    switch (d.kind) {
      case DecisionKind::kFirst: report->first++; break;
      case DecisionKind::kDuplicate:
        report->duplicate++;
        if (it.filtered) report->filtered++;
        break;
      case DecisionKind::kConflict: report->conflict++; break;
      case DecisionKind::kRetry: report->retried++; break;
      case DecisionKind::kParked: report->parked++; break;
      case DecisionKind::kReleased: report->released++; break;
      case DecisionKind::kInFlight: report->in_flight++; break;
    }
    if (sink_) sink_(d);
  }
}

Result<std::vector<Message>> Pipeline::Impl::Poll() {
  Result<std::vector<Message>> polled = std::vector<Message>{};
  // A source that cannot decode what the broker holds must not take the consumer down with it.
  if (std::string thrown = ThrownBy([&] { polled = source_->Poll(opt_.batch_size, opt_.max_linger_ms); });
      !thrown.empty())
    polled = Status::Unavailable("the source threw " + thrown + " while polling");
  return polled;
}

bool Pipeline::Impl::Decide(std::vector<BatchItem>& items, int* transaction_tries, BatchReport* report) {
  Status s;
  // A store that throws has failed like any other: the messages go back undecided,
  // and a redelivery meets the records, whatever landed.
  if (std::string thrown = ThrownBy([&] { s = TransactRerunningConflicts(items, transaction_tries); });
      !thrown.empty())
    s = Status::Unavailable("the store threw " + thrown);
  report->transaction_retries = static_cast<size_t>(*transaction_tries - 1);
  if (s.ok()) {
    unavailable_backoff_ms_ = 0;
  } else {
    counters_.commit_failures++;
    // Nothing was decided for good: give the messages back, held back by a growing
    // delay so an outage does not turn into a hot loop.
    ReleaseUndecided(items, "store: " + s.ToString());
    report->status = s;
  }
  FinishFilter(items, s.ok());
  return s.ok();
}

BatchReport Pipeline::Impl::RunOnce() {
  BatchReport report;
  auto polled = Poll();
  if (!polled.ok()) {
    report.status = polled.status();
    env_->SleepMs(Backoff());
    return report;
  }
  std::vector<Message>& msgs = *polled;
  report.polled = msgs.size();
  if (msgs.empty()) return report;
  counters_.batches++;
  counters_.received += static_cast<int64_t>(msgs.size());

  const int64_t t0 = env_->MonotonicMicros();
  std::vector<BatchItem> items(msgs.size());
  for (size_t i = 0; i < msgs.size(); ++i) {
    items[i].msg = &msgs[i];
    items[i].polled_at_us = t0;
  }
  Plan(items);
  bool stalled = !ApplyFilter(items);
  int transaction_tries = 1;
  if (!stalled) stalled = !Decide(items, &transaction_tries, &report);
  FollowPrimaries(items);
  Settle(items, &report);
  Report(items, transaction_tries, &report);
  // While a dependency is down, stop taking messages for a while.
  if (stalled) env_->SleepMs(unavailable_backoff_ms_);
  return report;
}

Pipeline::Pipeline(Source* source, Store* store, Env* env, PipelineOptions options)
    : impl_(std::make_unique<Impl>(source, store, env, std::move(options))) {}
Pipeline::~Pipeline() = default;

Status Pipeline::Register(HandlerSpec spec) { return impl_->Register(std::move(spec)); }
void Pipeline::SetDecisionSink(DecisionSink sink) { impl_->sink_ = std::move(sink); }
Status Pipeline::SetFastFilter(FastFilter* filter, FastFilterOptions options) {
  return impl_->SetFastFilter(filter, options);
}
BatchReport Pipeline::RunOnce() { return impl_->RunOnce(); }
const DecisionCounters& Pipeline::counters() const { return impl_->counters_; }

Status Pipeline::Run(const std::function<bool()>& should_stop, bool until_idle) {
  while (!should_stop || !should_stop()) {
    BatchReport r = RunOnce();
    if (until_idle && r.polled == 0 && r.status.ok()) return Status::OK();
  }
  return Status::OK();
}

}  // namespace idem
