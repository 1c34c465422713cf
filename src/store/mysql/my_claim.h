// The batch statements of the MySQL store, built for a batch's size: the claim
// (insert the new keys, lock and read the existing ones) and the record writes
// (the completions, the touches of copies).
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

// The same SELECT, LOCK IN SHARE MODE: how the claim reads existing records
// (my_tx.cc says why).
std::string ReadSharedSql(size_t keys);

// One UPDATE for the batch's completions: each column's new value chosen by
// CASE `key`; with `takes_over` the message id too (an empty one keeps the record's).
std::string CompleteSql(size_t keys, bool takes_over);
std::vector<Value> CompleteParams(std::string_view group, std::span<const RecordWrite> completions, bool takes_over,
                                  int64_t now_ms);

// One UPDATE counting a copy on each of `keys` records.
std::string TouchSql(size_t keys);
std::vector<Value> TouchParams(std::string_view group, std::span<const std::string_view> keys, int64_t now_ms);

}  // namespace idem::mysql
