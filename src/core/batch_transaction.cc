#include "core/batch_transaction.h"

#include <algorithm>
#include <functional>
#include <map>

#include "core/run_handler.h"
#include "store/replay_grants.h"

namespace idem {
namespace {

// The text a record is completed with: the failure, or for an applied message
// the note it carries (a degraded filter).
std::string_view CompletionText(const BatchItem& it, const Outcome& o) {
  return o.kind == DecisionKind::kFirst && o.reason.empty() ? std::string_view(it.note) : std::string_view(o.reason);
}

// A FAILED record runs again only on an operator's replay grant, taken here
// in the transaction that runs it (store/replay_grants.h); no header a
// producer could set counts. Only a FAILED record of the same payload looks.
Result<bool> ReplayGranted(const ClaimResult& claim, const BatchItem& it, StoreTx& tx) {
  if (claim.inserted || claim.existing.status != RecordStatus::kFailed || claim.existing.fingerprint != it.fingerprint)
    return false;
  return replay_grants::Take(tx, *it.msg);
}

}  // namespace

// The handlers with a set-based form run each group of two or more of their
// messages in one call; a group that does not apply as a whole is left
// undecided, for one run per message (careful), or ends the run (optimistic).
Status BatchTransaction::RunSetBased(std::vector<BatchItem>& items, const std::vector<size_t>& runnable, StoreTx& tx,
                                     bool careful, const Failure& known, const std::vector<bool>& decided,
                                     const std::function<void(size_t, const HandlerResult&)>& finish, Failure* met) {
  std::map<const HandlerSpec*, std::vector<size_t>> groups;  // spec → indices into `runnable`
  for (size_t j = 0; j < runnable.size(); ++j) {
    const BatchItem& it = items[runnable[j]];
    if (!decided[j] && it.spec->batch_fn) groups[it.spec].push_back(j);
  }
  for (const auto& [spec, js] : groups) {
    if (js.size() < 2) continue;
    std::vector<BatchItem*> group;
    for (size_t j : js) group.push_back(&items[runnable[j]]);
    std::vector<HandlerResult> results;
    bool applied = false;
    if (!careful) IDEM_RETURN_IF_ERROR(RunSetWithoutSavepoint(group, tx, *env_, &results, &applied));
    else if (spec != known.set) IDEM_RETURN_IF_ERROR(RunSetUnderSavepoint(group, tx, *env_, &results, &applied));
    if (!applied) {
      met->met = true;
      if (careful) continue;
      met->set = spec;
      return Status::OK();
    }
    for (size_t g = 0; g < js.size(); ++g) finish(js[g], results[g]);
  }
  return Status::OK();
}

Status BatchTransaction::RunOnce(std::vector<BatchItem>& items, const std::vector<size_t>& runnable, bool careful,
                                 const Failure& known, std::vector<Outcome>* outcomes, Failure* met) {
  *met = Failure{};
  outcomes->assign(runnable.size(), Outcome{});
  std::vector<bool> decided(runnable.size(), false);  // by its claim, or once its handler ran
  for (size_t i : runnable) {
    BatchItem& it = items[i];
    it.attempt = 0;
    it.found.reset();
    it.ran = false;
    it.written = RecordStatus::kSucceeded;
    it.summary.clear();
  }

  auto tx_or = store_->Begin();
  if (!tx_or.ok()) return tx_or.status();
  StoreTx& tx = **tx_or;
  const std::string& group = opt_->consumer_group;
  const int64_t now = env_->NowMs();
  const int64_t lease_until = now + opt_->lease_ms;

  // The batch's record writes, one list written by one call before the commit:
  // the touches of copies found by the claim, then each run's completion.
  std::vector<RecordWrite> writes;
  writes.reserve(runnable.size());
  std::vector<bool> taken_over(runnable.size(), false);
  if (guard_on_) {
    std::vector<ClaimRequest> reqs;
    reqs.reserve(runnable.size());
    for (size_t i : runnable) reqs.push_back({items[i].key, items[i].fingerprint, items[i].msg->id});
    auto claims = tx.Claim(group, reqs, now, lease_until);
    if (!claims.ok()) return claims.status();
    for (size_t j = 0; j < runnable.size(); ++j) {
      BatchItem& it = items[runnable[j]];
      auto replayed = ReplayGranted((*claims)[j], it, tx);
      if (!replayed.ok()) return replayed.status();
      const ClaimVerdict v = ClassifyClaim((*claims)[j], it.fingerprint, *replayed, now, opt_->retry);
      it.attempt = v.attempt;
      if (it.has_variants && !(*claims)[j].inserted) it.found = (*claims)[j].existing;
      if (!v.Runs()) {
        (*outcomes)[j] = v.ToOutcome();
        decided[j] = true;
      }
      // A copy of a finished key writes nothing unless the record's last_seen is
      // getting old: retention is what needs it, and a per-copy UPDATE (moving
      // the last_seen index entry) cost more than the claim itself.
      if (v.NotesDuplicate() && now - (*claims)[j].existing.last_seen_ms >= opt_->duplicate_refresh_after_ms)
        writes.push_back(RecordWrite::Touch(it.key));
      // A take-over is written with the completion: the record names this message from then on.
      taken_over[j] = v.kind == ClaimVerdict::Kind::kTakeOver;
    }
  }

  auto finish = [&](size_t j, const HandlerResult& result) {
    BatchItem& it = items[runnable[j]];
    RunVerdict v = ClassifyRun(result, it.attempt, opt_->retry);
    it.written = v.record;
    (*outcomes)[j] = std::move(v.outcome);
    writes.push_back({it.key, it.written, CompletionText(it, (*outcomes)[j]), it.summary,
                      taken_over[j] ? std::string_view(it.msg->id) : std::string_view()});
    decided[j] = true;
  };
  for (size_t j = 0; j < runnable.size(); ++j)
    if (!guard_on_) items[runnable[j]].attempt = 1;  // no record, no count: the guard is off, so retries are not capped
  // Optimistic, the first failure ends the run: with no savepoint to go back
  // to, the transaction holds its partial effects (on PostgreSQL it is
  // aborted), so it is rolled back — with the claims, which is why the careful
  // rerun claims the same attempts again.
  IDEM_RETURN_IF_ERROR(RunSetBased(items, runnable, tx, careful, known, decided, finish, met));
  if (met->met && !careful) {
    tx.Rollback();
    return Status::OK();
  }
  for (size_t j = 0; j < runnable.size(); ++j) {
    if (decided[j]) continue;
    BatchItem& it = items[runnable[j]];
    HandlerResult result;
    if (careful) {
      // The claim may have changed (another worker's commit in between): only
      // the same attempt's failure counts.
      const bool found = j == known.message && known.result && it.attempt == known.attempt;
      IDEM_RETURN_IF_ERROR(
          RunUnderSavepoint(it, tx, *env_, opt_->retry, found ? &*known.result : nullptr, &result));
      met->met = met->met || result.outcome != HandlerResult::Outcome::kOk;
    } else {
      bool succeeded = false, statement_failed = false;
      IDEM_RETURN_IF_ERROR(RunWithoutSavepoint(it, tx, *env_, &result, &succeeded, &statement_failed));
      if (!succeeded) {
        met->met = true;
        // Only the handler's own verdict is taken as found. When one of its
        // statements failed, the transaction may be what failed (PostgreSQL
        // aborts it on any error; a lost connection): the careful rerun, in a
        // new transaction, runs that handler again.
        if (!statement_failed) {
          met->message = j;
          met->attempt = it.attempt;
          met->result = std::move(result);
        }
        tx.Rollback();
        return Status::OK();
      }
    }
    finish(j, result);
  }
  // One call for the batch (`outcomes` and the items are not touched again before it returns).
  if (guard_on_) IDEM_RETURN_IF_ERROR(tx.WriteRecords(group, writes, env_->NowMs()));

  if (before_commit_) IDEM_RETURN_IF_ERROR(before_commit_(tx, items, runnable, *outcomes));

  Status s = tx.Commit();
  if (s.IsInDoubt()) return ResolveInDoubt(items, runnable);
  return s;
}

// A deadlock or serialization failure says nothing about the messages: the
// database rolled this transaction back (or must) so that a rival could go on.
// Run it again, after a short random wait so the two do not meet in step again;
// the records were rolled back too, so no attempt is spent. An optimistic run
// that met a failing message is run again at once, careful (not a try: the
// database had nothing against it).
Status BatchTransaction::Run(std::vector<BatchItem>& items, int* tries, bool* careful_rerun) {
  std::vector<size_t> runnable;
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].Runnable()) runnable.push_back(i);
  *tries = 1;
  *careful_rerun = false;
  if (runnable.empty()) return Status::OK();
  std::vector<Outcome> outcomes;
  bool careful = careful_first_;
  Failure known, met;
  for (;;) {
    Status s = RunOnce(items, runnable, careful, known, &outcomes, &met);
    if (s.ok() && met.met && !careful) {
      careful = true;
      known = std::move(met);
      *careful_rerun = true;
      counters_->careful_reruns++;
      continue;
    }
    if (s.ok()) break;
    if (!s.IsTransactionConflict()) return s;
    if (*tries >= opt_->transaction_conflict_tries)
      return Status::TransactionConflict(s.message() + " (still after " + std::to_string(*tries) +
                                         " runs of the batch transaction; raise transaction_conflict_tries "
                                         "or look for transactions that lock the same rows in another order)");
    counters_->transaction_retries++;
    const int64_t wait = opt_->transaction_conflict_wait_ms << std::min(*tries - 1, 20);
    env_->SleepMs(wait / 2 + static_cast<int64_t>(env_->Random64() % static_cast<uint64_t>(wait / 2 + 1)));
    ++*tries;
  }
  careful_first_ = met.met;  // only a careful run ends with a failure met
  for (size_t j = 0; j < runnable.size(); ++j) items[runnable[j]].Decide(std::move(outcomes[j]));
  return Status::OK();
}

// The COMMIT was sent and the answer lost. The records say what happened: the
// first record this batch changed shows our attempt count and status only if
// the commit landed (the whole batch commits or nothing does).
Status BatchTransaction::ResolveInDoubt(const std::vector<BatchItem>& items, const std::vector<size_t>& runnable) {
  for (size_t i : runnable) {
    const BatchItem& it = items[i];
    if (!it.ran) continue;
    auto rec = store_->ReadRecord(opt_->consumer_group, it.key);
    if (!rec.ok())
      return Status::InDoubt("commit outcome unknown and the record cannot be read: " + rec.status().message());
    bool landed = rec->has_value() && (*rec)->attempts == it.attempt && (*rec)->status == it.written &&
                  (*rec)->message_id == it.msg->id;
    if (landed) return Status::OK();
    return Status::Retryable("the commit did not land (record re-read after a lost COMMIT answer)");
  }
  return Status::OK();
}

}  // namespace idem
