// The batch statements of the MySQL store, built for a batch's size: the claim
// (insert the new keys, lock and read the existing ones) and the completion.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "idem/store.h"

namespace idem::mysql {

// INSERT IGNORE … VALUES (7 values per key) … RETURNING `key`: one statement
// inserts every new key and names them. IGNORE skips duplicate keys — and would
// also turn other errors into warnings, so the caller checks the warning count.
std::string ClaimInsertSql(size_t keys);
std::vector<Value> ClaimInsertParams(std::string_view group, std::span<const ClaimRequest* const> requests,
                                     int64_t now_ms, int64_t lease_until_ms);

// SELECT the records of `keys` keys of one group, in key order, FOR UPDATE.
std::string LockExistingSql(size_t keys);

// One UPDATE for the whole batch: each column's new value chosen by CASE `key`.
std::string CompleteSql(size_t keys);
std::vector<Value> CompleteParams(std::string_view group, std::span<const Completion> completions, int64_t now_ms);

}  // namespace idem::mysql
