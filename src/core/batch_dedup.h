// In-batch dedup: copies of one key inside a batch never reach the store twice.
#pragma once

#include <cstdint>
#include <vector>

#include "core/batch_item.h"
#include "idem/retry.h"

namespace idem {

// Among the undecided planned items, the first of each key stays; a later item
// with the same fingerprint becomes a copy of it (copy_of); one with another
// fingerprint becomes a variant of it (variant_of), judged by JudgeVariants.
void MarkInBatchCopies(std::vector<BatchItem>& items);

// Once the batch is decided, each variant is judged as if it had come alone:
// against the record its primary's claim found when the key had one (so a
// byte-exact copy of an applied message is a DUPLICATE even when a conflicting
// variant came first in the batch), as a CONFLICT with its primary when the key
// was new; given back with its primary when that one went back undecided.
void JudgeVariants(std::vector<BatchItem>& items, int64_t now_ms, const RetryPolicy& retry);

// Once the batch is decided, each copy takes its primary's fate: a duplicate
// when the primary's outcome is durable, given back with it otherwise (a copy
// may only be acknowledged once its primary's fate is durable).
void FollowPrimaries(std::vector<BatchItem>& items);

}  // namespace idem
