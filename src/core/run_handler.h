// Running one handler — under a savepoint, with in-process retries, or (the
// optimistic first run of a batch) without one — and the pipeline's exception
// boundary: whatever is derived from a message
// (key, fingerprint, filter key, the handler's run) is computed through here, so
// a throw costs that one message, never the batch or the process.
#pragma once

#include <vector>

#include "core/batch_item.h"
#include "idem/env.h"
#include "idem/retry.h"
#include "idem/sql.h"

namespace idem {

// Runs `item`'s handler inside `tx` and puts how it ended in `*result` (the
// item's plan is left to ClassifyRun). On OK the effects stay; on failure they
// are rolled back to the savepoint.
// A non-OK Status means the transaction itself broke (abort the batch); it is a
// transaction conflict when any statement of the handler met a deadlock or a
// serialization failure, whatever the handler returned. A `first_try` (not Ok)
// is taken as the result of the first try, without calling the handler: the
// failure an optimistic run met, before it was rolled back.
Status RunUnderSavepoint(BatchItem& item, SqlTx& tx, Env& env, const RetryPolicy& policy,
                         const HandlerResult* first_try, HandlerResult* result);

// Runs the set-based handler (HandlerSpec::batch_fn) of `items`, which share
// one spec, over all of them under one savepoint. *applied: every result was
// Ok — the effects stay, each item has ran and summary set, and `*results`
// holds one Ok per item; otherwise everything was rolled back and nothing of
// the items changed (run them one by one). A non-OK Status means the
// transaction itself broke, as for RunUnderSavepoint.
Status RunSetUnderSavepoint(const std::vector<BatchItem*>& items, SqlTx& tx, Env& env,
                            std::vector<HandlerResult>* results, bool* applied);

// The optimistic forms: one run of `item`'s handler (or of the set-based
// handler of `items`) with no savepoint and no in-process retry; `*result` is
// what the handler returned, *statement_failed whether one of its statements
// failed (and was not undone by the handler's own savepoint). *succeeded: it
// returned Ok (every result Ok) and no statement failed — the effects stay and
// ran/summary are set, as above. Otherwise the transaction
// holds whatever the handler wrote before it failed: the caller must roll the
// whole transaction back and run the batch again under savepoints. A non-OK
// Status is a transaction conflict, as for RunUnderSavepoint.
Status RunWithoutSavepoint(BatchItem& item, SqlTx& tx, Env& env, HandlerResult* result, bool* succeeded,
                           bool* statement_failed);
Status RunSetWithoutSavepoint(const std::vector<BatchItem*>& items, SqlTx& tx, Env& env,
                              std::vector<HandlerResult>* results, bool* succeeded);

// Calls the handler and turns exceptions into results.
HandlerResult InvokeHandler(const HandlerSpec& spec, HandlerContext& ctx);

// The exception being handled, for a reason: "std::out_of_range: vector::at",
// "std::bad_alloc", "a non-standard exception of type Oops".
// REQUIRES: called inside a catch block.
std::string DescribeCurrentException();

// Runs `step`. Returns "" when it returned, or what it threw (DescribeCurrentException).
template <typename Step>
std::string ThrownBy(Step&& step) {
  try {
    step();
    return {};
  } catch (...) {
    return DescribeCurrentException();
  }
}

}  // namespace idem
