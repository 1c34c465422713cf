// One PostgreSQL transaction on a store's connection: the business handlers'
// SQL and the consumption-record statements. Rolls back when destroyed unless
// committed.
#pragma once

#include <memory>

#include "idem/store.h"
#include "store/postgres/pg_conn.h"

namespace idem::pg {

// REQUIRES: `conn` has just run BEGIN and outlives the transaction.
std::unique_ptr<StoreTx> NewTx(Conn* conn);

// Every record read returns these columns, in RecordFromRow's order (core/record_row.h).
#define IDEM_PG_RECORD_COLUMNS                                                                  \
  "consumer_group, key, status, fingerprint, message_id, attempts, duplicates, lease_until_ms, " \
  "first_seen_ms, last_seen_ms, last_error, result_summary"

}  // namespace idem::pg
