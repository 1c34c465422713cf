// One MySQL transaction on a store's connection: the business handlers' SQL
// and the consumption-record statements. Rolls back when destroyed unless
// committed.
#pragma once

#include <memory>

#include "idem/store.h"
#include "store/mysql/my_conn.h"

namespace idem::mysql {

// REQUIRES: `conn` has just run START TRANSACTION (transaction `id`) and
// outlives the transaction.
std::unique_ptr<StoreTx> NewTx(Conn* conn, uint64_t id);

}  // namespace idem::mysql
