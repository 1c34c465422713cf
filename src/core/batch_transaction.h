// The store phase of one batch: one transaction claims the record of every
// runnable item at once, classifies each claim (ClassifyClaim), runs the
// handlers (ClassifyRun), completes the batch and commits. The handlers run
// first with no savepoint (optimistic); when one does not succeed the run is
// rolled back and made again with a savepoint per message (careful), which
// isolates the failure. A deadlock or serialization failure runs it again; a
// commit whose answer was lost is resolved by re-reading a record.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
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
  // many). `*careful_rerun` says whether a message failed in the optimistic run
  // so that the batch ran again with per-message savepoints (that rerun is not
  // a try). On OK every runnable item is decided, with what the committed
  // records say. On error none is: nothing was decided for good. Outcomes
  // decided before the call stand either way.
  Status Run(std::vector<BatchItem>& items, int* tries, bool* careful_rerun);

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
  // What failed in a run. An optimistic run stops at it; the careful rerun
  // takes it as found rather than run it again (the rolled-back run saw the
  // same transaction up to that point): the set-based handler whose group did
  // not apply goes straight to one run per message, and the message's result
  // counts as its first try (in-process retries and their waits go on from
  // there, as they would have) — unless one of its statements failed, which
  // may be the transaction's fault, not the message's.
  struct Failure {
    bool met = false;
    const HandlerSpec* set = nullptr;  // a set-based group that did not apply
    size_t message = SIZE_MAX;  // or this index into `runnable`, failed at attempt...
    int attempt = 0;            // ...with this result
    std::optional<HandlerResult> result;
  };

  // One run, careful (a savepoint per message, `known` taken as found) or
  // optimistic. `*met` says whether a handler did not succeed: optimistic, that
  // ended the run — rolled back, OK returned, nothing decided; careful, its
  // savepoint isolated it and the run went on. On OK without an optimistic
  // failure, `outcomes` holds one outcome per index in `runnable`.
  Status RunOnce(std::vector<BatchItem>& items, const std::vector<size_t>& runnable, bool careful,
                 const Failure& known, std::vector<Outcome>* outcomes, Failure* met);
  // Runs the set-based handlers (HandlerSpec::batch_fn) over their groups;
  // calls `finish(j, result)` for each item it decided. A group that does not
  // apply as a whole is noted in `*met` (careful: its items are left
  // undecided; optimistic: the run stops there).
  Status RunSetBased(std::vector<BatchItem>& items, const std::vector<size_t>& runnable, StoreTx& tx, bool careful,
                     const Failure& known, const std::vector<bool>& decided,
                     const std::function<void(size_t, const HandlerResult&)>& finish, Failure* met);
  Status ResolveInDoubt(const std::vector<BatchItem>& items, const std::vector<size_t>& runnable);

  Store* store_;
  Env* env_;
  const PipelineOptions* opt_;
  DecisionCounters* counters_;
  bool guard_on_ = true;
  // The next batch starts careful: the last one's careful run met a failure
  // again, so failures are coming in a row (a poison stream) and an optimistic
  // run would most likely be thrown away. A careful batch with no failure
  // turns it off. So a run of failing batches costs one run each, and a stray
  // failure two runs of its batch and savepoints in the next.
  bool careful_first_ = false;
  BeforeCommit before_commit_;
};

}  // namespace idem
