// A declarative handler (handler_config.h) as a HandlerSpec. Its steps run in
// order in the consumption record's transaction, each through one business
// guard, and each outcome follows the guard's rules:
//
//   insert_once        inserted → next step; already there → on_already_applied (ack: a duplicate)
//   change_balance     applied → next; insufficient → retryable (awaiting a top-up); no row → permanent
//   transition         applied → next; already in the target → ack; stale → the machine's on_stale;
//                      too early → retryable; illegal or no row → permanent
//   update_if_version  applied → next; version moved → on_version_moved; no row → permanent
//   sql                rows == expect_rows (or any) → next; otherwise on_other_rows
//
// A step that stops with ack ends the handler successfully (nothing after it
// runs); retry and park roll the message back to its savepoint. A payload
// field that is missing or of the wrong type is permanent: a bad payload.
#pragma once

#include <vector>

#include "idem/handler.h"
#include "service/handler_config.h"

namespace idem::service {

// InvalidArgument (naming the step's position) when a transition names a
// state machine that is not in `machines` or cannot be built.
Result<HandlerSpec> MakeDeclaredHandler(const DeclaredHandler& handler,
                                        const std::vector<StateMachineConfig>& machines);

}  // namespace idem::service
