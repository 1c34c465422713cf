// Which messages of a batch are acknowledged if its transaction commits: the
// part of settling that a Source able to write through the store's transaction
// (SettlesInStoreTransaction: the embedded queue in the store's file) commits
// with the effects instead of after them.
#pragma once

#include <vector>

#include "core/batch_item.h"

namespace idem {

// `outcomes` holds the transaction's outcome for each index in `runnable`
// (those items are not decided yet); every other item is decided already or
// follows its primary (an in-batch copy). Returns the indexes of the items
// whose settlement will be an ack, in batch order.
std::vector<size_t> AckedIfCommitted(const std::vector<BatchItem>& items, const std::vector<size_t>& runnable,
                                     const std::vector<Outcome>& outcomes);

}  // namespace idem
