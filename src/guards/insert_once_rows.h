// InsertOnce for many rows at once: the set-based form a batch of messages
// uses (the declarative insert_once step over a whole batch).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "idem/guards.h"

namespace idem::guards {

// Inserts `rows` into `table` in as few multi-row statements as the engine's
// parameter limit allows, each row skipped when it would violate a UNIQUE
// constraint, and returns how many were inserted: rows.size() means every row
// was new. Which rows were skipped is not reported; a caller that needs to know
// runs InsertOnce row by row instead.
// Every row must name the same columns in the same order (InvalidArgument
// otherwise); names are checked identifiers, values are bound parameters.
// On MySQL a duplicate fails the statement (AlreadyExists) instead of being
// skipped, so there a result is rows.size() or an error.
Result<int64_t> InsertOnceRows(SqlTx& tx, std::string_view table, const std::vector<std::vector<Column>>& rows);

}  // namespace idem::guards
