// The batch pipeline. See include/idem/pipeline.h for the contract.
//
// One batch, in phases; each message's outcome is set once, by the phase that
// decides it (core/batch_item.h):
//   Plan     without the database: payload limit, handler lookup, key and
//            fingerprint, in-batch copies. Bad input is parked here with its reason.
//   Filter   the optional fast filter marks the keys, or says DONE / in flight
//            (core/filter_phase).
//   Store    one transaction decides every runnable message from its record and
//            its handler run (core/batch_transaction); if the store fails, what
//            is undecided is given back.
//   Follow   in-batch copies take their primary's fate.
//   Report   decisions and counters, once per message — before Settle, so a
//            decision log written by the sink holds every message the source
//            is then told to acknowledge, even if the process dies right after.
//   Settle   one call to the source, mapping each message's outcome. A source
//            that can settle through the store's transaction (the embedded
//            queue in the store's file) has the acks written just before the
//            COMMIT instead (core/acks_in_transaction), and only the rest here.
#include "idem/pipeline.h"

#include <algorithm>

#include "core/acks_in_transaction.h"
#include "core/batch_dedup.h"
#include "core/batch_item.h"
#include "core/batch_transaction.h"
#include "core/filter_phase.h"
#include "core/pipeline_test_hooks.h"
#include "core/plan_item.h"
#include "core/run_handler.h"
#include "idem/store_dead_letters.h"
#include "store/dead_letter_table.h"

namespace idem {

class Pipeline::Impl {
 public:
  Impl(Source* source, Store* store, Env* env, PipelineOptions options)
      : source_(source), env_(env), opt_(std::move(options)), store_phase_(store, env, &opt_, &counters_) {
    acks_in_tx_ = source->settles_in_store_transaction();
    // What the broker cannot take back as a dead letter is kept in the store,
    // so no message can hold its queue up for good.
    if (auto* parks = source->parks_in_store(); parks && store) {
      // The sink lives as long as the pipeline, the only caller of Settle; the
      // source may be gone first, so it is not told when the pipeline goes.
      store_dead_letters_ = store_dead_letters::MakeSink(store, opt_.consumer_group, env);
      parks->SetStoreDeadLetters(store_dead_letters_.get());
    }
    if (acks_in_tx_)
      store_phase_.SetBeforeCommit([this](StoreTx& tx, const std::vector<BatchItem>& items,
                                          const std::vector<size_t>& runnable, const std::vector<Outcome>& outcomes) {
        return AckInTransaction(tx, items, runnable, outcomes);
      });
  }

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
    filter_ = FilterPhase(filter, options, &opt_.consumer_group);
    return Status::OK();
  }

  void TurnGuardOff() {
    protection_ = false;
    store_phase_.TurnGuardOff();
  }

  BatchReport RunOnce();
  DecisionSink sink_;
  DecisionCounters counters_;

 private:
  Result<std::vector<Message>> Poll();
  void Plan(std::vector<BatchItem>& items);
  // Returns false when the filter is down and fail-closed (the runnable messages are given back).
  bool Filter(std::vector<BatchItem>& items);
  // Returns false when the store failed (the undecided messages are given back).
  bool Store(std::vector<BatchItem>& items, int* transaction_tries, BatchReport* report);
  void ReleaseUndecided(std::vector<BatchItem>& items, Outcome::By by, const std::string& reason);
  Status AckInTransaction(StoreTx& tx, const std::vector<BatchItem>& items, const std::vector<size_t>& runnable,
                          const std::vector<Outcome>& outcomes);
  void Settle(const std::vector<BatchItem>& items, BatchReport* report);
  void Report(const std::vector<BatchItem>& items, int transaction_tries, BatchReport* report);
  int64_t Backoff();

  Source* source_;
  Env* env_;
  PipelineOptions opt_;
  HandlerTable handlers_;
  FilterPhase filter_{nullptr, {}, &opt_.consumer_group};
  BatchTransaction store_phase_;
  int64_t unavailable_backoff_ms_ = 0;
  bool protection_ = true;  // PipelineTestHooks::TurnGuardOff
  // The source, when it can acknowledge through the store's transaction; null
  // once it said the store's database is not its own.
  SettlesInStoreTransaction* acks_in_tx_ = nullptr;
  std::vector<size_t> acked_in_tx_;  // items whose ack the committed transaction carried
  std::unique_ptr<StoreDeadLetterSink> store_dead_letters_;  // handed to a ParksInStore source
};

void Pipeline::Impl::Plan(std::vector<BatchItem>& items) {
  for (BatchItem& it : items) PlanItem(it, handlers_, opt_);
  if (protection_) MarkInBatchCopies(items);  // unprotected, every copy runs
}

bool Pipeline::Impl::Filter(std::vector<BatchItem>& items) {
  if (!protection_) return true;
  std::string down;
  if (filter_.Mark(items, opt_.lease_ms, &counters_, &down)) return true;
  ReleaseUndecided(items, Outcome::By::kFilter, down);
  return false;
}

bool Pipeline::Impl::Store(std::vector<BatchItem>& items, int* transaction_tries, BatchReport* report) {
  Status s;
  acked_in_tx_.clear();
  // A store that throws has failed like any other: the messages go back undecided,
  // and a redelivery meets the records, whatever landed.
  bool careful_rerun = false;
  if (std::string thrown = ThrownBy([&] { s = store_phase_.Run(items, transaction_tries, &careful_rerun); });
      !thrown.empty())
    s = Status::Unavailable("the store threw " + thrown);
  report->transaction_retries = static_cast<size_t>(*transaction_tries - 1);
  report->careful_reruns = careful_rerun ? 1 : 0;
  if (s.ok()) {
    unavailable_backoff_ms_ = 0;
    filter_.DecideFromVerdicts(items, opt_.lease_ms);
  } else {
    acked_in_tx_.clear();  // rolled back with the transaction: still unsettled
    counters_.commit_failures++;
    // Nothing was decided for good (not even what the filter said): give the
    // messages back, held back by a growing delay so an outage does not turn
    // into a hot loop.
    ReleaseUndecided(items, Outcome::By::kStore, "store: " + s.ToString());
    report->status = s;
  }
  filter_.Finish(items, s.ok());
  return s.ok();
}

void Pipeline::Impl::ReleaseUndecided(std::vector<BatchItem>& items, Outcome::By by, const std::string& reason) {
  const int64_t delay = Backoff();
  for (BatchItem& it : items)
    if (!it.decided() && !it.copy_of) it.Decide(Outcome::Release(by, reason, delay));  // copies follow their primary
}

int64_t Pipeline::Impl::Backoff() {
  unavailable_backoff_ms_ = unavailable_backoff_ms_ == 0
                                ? opt_.unavailable_backoff_min_ms
                                : std::min(unavailable_backoff_ms_ * 2, opt_.unavailable_backoff_max_ms);
  return unavailable_backoff_ms_;
}

Status Pipeline::Impl::AckInTransaction(StoreTx& tx, const std::vector<BatchItem>& items,
                                        const std::vector<size_t>& runnable, const std::vector<Outcome>& outcomes) {
  acked_in_tx_.clear();  // a run before this one (a transaction conflict) rolled back
  if (!acks_in_tx_) return Status::OK();
  std::vector<size_t> acked = AckedIfCommitted(items, runnable, outcomes);
  std::vector<const Message*> messages;
  messages.reserve(acked.size());
  for (size_t i : acked) messages.push_back(items[i].msg);
  Result<bool> wrote = false;
  if (std::string thrown = ThrownBy([&] { wrote = acks_in_tx_->AckInTransaction(tx, messages); }); !thrown.empty())
    return Status::Unavailable("the source threw " + thrown + " while acknowledging in the store's transaction");
  if (!wrote.ok()) return wrote.status();
  if (!*wrote) {
    acks_in_tx_ = nullptr;  // another database: settle through Settle from now on
    return Status::OK();
  }
  acked_in_tx_ = std::move(acked);
  return Status::OK();
}

void Pipeline::Impl::Settle(const std::vector<BatchItem>& items, BatchReport* report) {
  std::vector<bool> settled(items.size(), false);
  if (!acked_in_tx_.empty()) {
    std::vector<const Message*> committed;
    for (size_t i : acked_in_tx_) {
      settled[i] = true;
      committed.push_back(items[i].msg);
    }
    acked_in_tx_.clear();
    acks_in_tx_->AckCommitted(committed);
  }
  std::vector<Settlement> settlements;
  settlements.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i)
    if (!settled[i]) settlements.push_back(items[i].ToSettlement());
  if (settlements.empty()) return;
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
    const Outcome::By by = it.outcome ? it.outcome->by : Outcome::By::kStore;
    if (by != Outcome::By::kPlan) d.transaction_tries = transaction_tries;
    counters_.Count(d.kind);
    switch (d.kind) {
      case DecisionKind::kFirst: report->first++; break;
      case DecisionKind::kDuplicate:
        report->duplicate++;
        if (by == Outcome::By::kFilter) report->filtered++;
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
  bool stalled = !Filter(items);
  int transaction_tries = 1;
  if (!stalled) stalled = !Store(items, &transaction_tries, &report);
  JudgeVariants(items, env_->NowMs(), opt_.retry);
  FollowPrimaries(items);
  Report(items, transaction_tries, &report);
  Settle(items, &report);
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
void PipelineTestHooks::TurnGuardOff(Pipeline& pipeline) { pipeline.impl_->TurnGuardOff(); }
const DecisionCounters& Pipeline::counters() const { return impl_->counters_; }

Status Pipeline::Run(const std::function<bool()>& should_stop, bool until_idle) {
  while (!should_stop || !should_stop()) {
    BatchReport r = RunOnce();
    if (until_idle && r.polled == 0 && r.status.ok()) return Status::OK();
  }
  return Status::OK();
}

}  // namespace idem
