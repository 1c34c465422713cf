// One PostgreSQL transaction on a store's connection: the business handlers'
// SQL and the consumption-record statements. Rolls back when destroyed unless
// committed.
#pragma once

#include <memory>

#include "idem/store.h"
#include "store/postgres/pg_conn.h"
#include "store/record_sql.h"

namespace idem::pg {

// REQUIRES: `conn` has just run BEGIN and outlives the transaction.
std::unique_ptr<StoreTx> NewTx(Conn* conn);

// Every record read returns these columns (store/record_sql.h).
#define IDEM_PG_RECORD_COLUMNS IDEM_RECORD_COLUMNS

}  // namespace idem::pg
