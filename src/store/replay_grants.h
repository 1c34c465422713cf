// Replay grants: the store's word that an operator replayed a dead letter.
//
// A message whose consumption record says FAILED is parked again when it
// comes back, unless the store holds a grant for that very copy: `idem dlq
// replay` and the browser console write one per dead letter they replay, in
// the same transaction as the audit row that names the operator
// (console/audited_change.h). The pipeline takes the grant (deletes it) in the
// transaction that runs the message again, so one grant re-runs one copy once.
// No header is trusted for this: a producer cannot grant itself a replay.
//
// A grant names the copy by a digest of its topic and payload bytes
// (ReplayCopyDigest), which every broker carries unchanged from the dead
// letter to the replayed copy; so a grant lets exactly those bytes run once
// more, whichever copy of them comes first. The table is idem_replay_grants
// (store/schema/tables.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "idem/message.h"
#include "idem/sql.h"
#include "idem/status.h"

namespace idem::replay_grants {

// The digest a grant names a copy by: 32 hex digits over the message's topic
// and payload bytes.
std::string ReplayCopyDigest(const Message& m);

// Writes one grant per message, tied to the audit row `audit_id`.
Status Write(SqlTx& tx, int64_t audit_id, const std::string& actor, const std::vector<Message>& messages,
             int64_t now_ms);

// Takes (deletes) one grant for this copy; false when there is none.
Result<bool> Take(SqlTx& tx, const Message& m);

}  // namespace idem::replay_grants
