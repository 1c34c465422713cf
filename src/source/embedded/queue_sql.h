// Statements of the embedded queue whose query plan matters enough to be
// checked by a test.
#pragma once

namespace idem::embedded {

// The acknowledgements written in the store's transaction, the batch's row ids
// as one JSON array. `+state` keeps SQLite on the primary key: with a plain
// `state = 0` the planner, which knows nothing of json_each's size, picks the
// ready index instead and walks every queued row for each batch — the cost
// grows with the backlog.
inline constexpr const char* kAckIdsSql =
    "DELETE FROM idem_queue WHERE id IN (SELECT value FROM json_each(?)) AND +state = 0";

}  // namespace idem::embedded
