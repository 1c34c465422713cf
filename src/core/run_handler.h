// Running one handler under a savepoint, with in-process retries (SPEC R-F6)
// and the one place where handler exceptions are caught and classified.
#pragma once

#include "core/batch_item.h"
#include "idem/env.h"
#include "idem/retry.h"
#include "idem/sql.h"

namespace idem {

// Runs `item`'s handler inside `tx`. On OK the effects stay; on failure they are
// rolled back to the savepoint and the item is planned kRetry or kPark.
// A non-OK Status means the transaction itself broke (abort the batch); it is a
// transaction conflict when any statement of the handler met a deadlock or a
// serialization failure, whatever the handler returned.
Status RunUnderSavepoint(BatchItem& item, SqlTx& tx, Env& env, const RetryPolicy& policy);

// Calls the handler and turns exceptions into results.
HandlerResult InvokeHandler(const HandlerSpec& spec, HandlerContext& ctx);

}  // namespace idem
