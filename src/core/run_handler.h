// Running one handler under a savepoint, with in-process retries,
// and the pipeline's exception boundary: whatever is derived from a message
// (key, fingerprint, filter key, the handler's run) is computed through here, so
// a throw costs that one message, never the batch or the process.
#pragma once

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
// serialization failure, whatever the handler returned.
Status RunUnderSavepoint(BatchItem& item, SqlTx& tx, Env& env, const RetryPolicy& policy, HandlerResult* result);

// Runs the set-based handler (HandlerSpec::batch_fn) of `items`, which share
// one spec, over all of them under one savepoint. *applied: every result was
// Ok — the effects stay, each item has ran and summary set, and `*results`
// holds one Ok per item; otherwise everything was rolled back and nothing of
// the items changed (run them one by one). A non-OK Status means the
// transaction itself broke, as for RunUnderSavepoint.
Status RunSetUnderSavepoint(const std::vector<BatchItem*>& items, SqlTx& tx, Env& env,
                            std::vector<HandlerResult>* results, bool* applied);

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
