// The store phase of one batch: one transaction claims the record of every
// runnable item at once, classifies each claim (ClassifyClaim), runs the
// handlers each under its own savepoint (ClassifyRun), completes the batch and
// commits. A deadlock or serialization failure runs it again; a commit whose
// answer was lost is resolved by re-reading a record.
#pragma once

#include <functional>
#include <vector>

#include "core/batch_item.h"
#include "idem/decision.h"
#include "idem/env.h"
#include "idem/pipeline.h"
#include "idem/store.h"

namespace idem {

class BatchTransaction {
 public:
  // All pointers must outlive this object.
  BatchTransaction(Store* store, Env* env, const PipelineOptions* options, DecisionCounters* counters)
      : store_(store), env_(env), opt_(options), counters_(counters) {}

  // Runs the transaction for items[i].Runnable(), again after each transaction
  // conflict (up to transaction_conflict_tries runs in all; `*tries` says how
  // many). On OK every runnable item is decided, with what the committed records
  // say. On error none is: nothing was decided for good. Outcomes decided
  // before the call stand either way.
  Status Run(std::vector<BatchItem>& items, int* tries);

  // No records: every runnable message runs its handler (PipelineTestHooks::TurnGuardOff).
  void TurnGuardOff() { guard_on_ = false; }

  // Runs in the open transaction just before each COMMIT, with that run's
  // outcomes (one per index in `runnable`; the items are not decided yet); an
  // error rolls the run back. The pipeline writes a batch's acks here when the
  // source can settle through the store's transaction.
  using BeforeCommit = std::function<Status(StoreTx& tx, const std::vector<BatchItem>& items,
                                            const std::vector<size_t>& runnable, const std::vector<Outcome>& outcomes)>;
  void SetBeforeCommit(BeforeCommit hook) { before_commit_ = std::move(hook); }

 private:
  // One run. On OK, `outcomes` holds one outcome per index in `runnable`.
  Status RunOnce(std::vector<BatchItem>& items, const std::vector<size_t>& runnable, std::vector<Outcome>* outcomes);
  // Runs the set-based handlers (HandlerSpec::batch_fn) over their groups;
  // calls `finish(j, result)` for each item it decided.
  Status RunSetBased(std::vector<BatchItem>& items, const std::vector<size_t>& runnable, StoreTx& tx,
                     const std::vector<bool>& decided, const std::function<void(size_t, const HandlerResult&)>& finish);
  Status ResolveInDoubt(const std::vector<BatchItem>& items, const std::vector<size_t>& runnable);

  Store* store_;
  Env* env_;
  const PipelineOptions* opt_;
  DecisionCounters* counters_;
  bool guard_on_ = true;
  BeforeCommit before_commit_;
};

}  // namespace idem
