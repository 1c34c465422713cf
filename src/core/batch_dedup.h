// In-batch dedup: copies of one key inside a batch never reach the store twice.
#pragma once

#include <vector>

#include "core/batch_item.h"

namespace idem {

// Among the undecided planned items, the first of each key stays; a later item
// with the same fingerprint becomes a copy of it (copy_of); one with another
// fingerprint is decided a CONFLICT, without the database.
void MarkInBatchCopies(std::vector<BatchItem>& items);

// Once the batch is decided, each copy takes its primary's fate: a duplicate
// when the primary's outcome is durable, given back with it otherwise (a copy
// may only be acknowledged once its primary's fate is durable).
void FollowPrimaries(std::vector<BatchItem>& items);

}  // namespace idem
