// In-batch dedup: copies of one key inside a batch never reach the store twice.
#pragma once

#include <vector>

#include "core/batch_item.h"

namespace idem {

// For items planned kRun, the first item of each key stays kRun; a later item
// with the same fingerprint becomes kCopyOf(first); one with another fingerprint
// becomes a CONFLICT, decided without the database.
void MarkInBatchCopies(std::vector<BatchItem>& items);

// Once the batch is decided, each kCopyOf item takes its primary's fate: a
// duplicate when the primary's outcome is durable, given back with it otherwise
// (a copy may only be acknowledged once its primary's fate is durable).
void FollowPrimaries(std::vector<BatchItem>& items);

}  // namespace idem
