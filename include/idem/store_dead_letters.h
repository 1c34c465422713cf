// Dead letters kept in the store: where a message goes when its broker cannot
// take a dead-letter copy of it, not even a bare one (its body alone is over the
// broker's limit, or the broker refused the move for good). Without this a
// consumer could only keep the original unacknowledged and try the move again
// forever, and the queue behind it would never move.
// User guide: docs/retries-and-dlq.md (where each kind of message ends up),
// docs/hostile-input.md (the limits).
//
// Thread safety: a sink writes through its pipeline's store, so it is called on
// the thread that drives that pipeline (from inside Source::Settle) and no other.
#pragma once

#include <string>

#include "idem/message.h"
#include "idem/status.h"

namespace idem {

// Keeps a message in the store's idem_dead_letters table. The Pipeline gives one
// to its Source (ParksInStore); `idem dlq list/show` list these beside the
// broker's dead letters.
class StoreDeadLetterSink {
 public:
  virtual ~StoreDeadLetterSink() = default;
  // Durably keeps `message` (payload byte-exact, headers, key, topic, id) with
  // `reason` and the handler runs `attempts`, in a transaction of its own.
  // Returns the row's id once committed: only then may the Source acknowledge
  // the original. On error nothing is kept; the Source must not acknowledge.
  virtual Result<int64_t> Park(const Message& message, const std::string& reason, int attempts) = 0;
};

// Optional, for a Source whose broker limits what a dead-letter copy can carry;
// it offers it through Source::parks_in_store() (idem/source.h).
// The Pipeline hands it its sink when it is built; a Source without a sink keeps
// such a message unacknowledged and says so in the Settle status.
class ParksInStore {
 public:
  virtual ~ParksInStore() = default;
  // `sink` outlives every later Settle (the Pipeline's lives as long as the
  // Pipeline, which alone settles); null takes it away.
  virtual void SetStoreDeadLetters(StoreDeadLetterSink* sink) = 0;
};

}  // namespace idem
