// The statements of idem_dead_letters (store/schema/tables.h): parking a
// message in the store, and reading the rows back for `idem dlq`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "idem/dead_letters.h"
#include "idem/env.h"
#include "idem/store.h"
#include "idem/store_dead_letters.h"

namespace idem::store_dead_letters {

// Inserts one row in its own transaction and commits; returns its id.
Result<int64_t> Park(Store& store, std::string_view group, const Message& message, std::string_view reason,
                     int attempts, int64_t now_ms);

// Up to `limit` rows with ids above `after_id`, in id order. first_failed_ms
// and last_failed_ms are the time it was parked.
Result<std::vector<DeadLetter>> List(Store& store, size_t limit, int64_t after_id);
Result<std::optional<DeadLetter>> Get(Store& store, int64_t id);

// The sink a Pipeline hands its Source: parks through `store` for `group`,
// stamped with env's clock. The store and env must outlive it.
std::unique_ptr<StoreDeadLetterSink> MakeSink(Store* store, std::string group, Env* env);

}  // namespace idem::store_dead_letters
