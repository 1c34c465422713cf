// DeadLetters: the console of a broker's dead-letter queue (CLI: `idem dlq`).
// User guide: docs/retries-and-dlq.md, docs/brokers.md (what each broker offers).
//
// Optional: a broker provides it only where it can keep dead letters it can list
// (Broker::dead_letters() is null otherwise). An operation the broker cannot
// honour (a log cannot delete one record) returns Status::NotSupported with a
// message that says what the broker does instead; it never pretends.
// Thread safety: one DeadLetters per thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "idem/message.h"
#include "idem/status.h"

namespace idem {

// One message in the dead-letter queue.
struct DeadLetter {
  int64_t id = 0;  // stable id within this broker's dead-letter queue
  Message message;
  std::string reason;
  int attempts = 0;  // the handler runs counted when it was parked (Settlement::attempts)
  int64_t first_failed_ms = 0;
  int64_t last_failed_ms = 0;
};

class DeadLetters {
 public:
  virtual ~DeadLetters() = default;

  // Puts a message straight into the dead-letter queue with a reason (rejected at
  // publish time: not JSON, no key, too large). Returns its dead-letter id.
  virtual Result<int64_t> ParkRejected(const Message& message, const std::string& reason) = 0;

  // Up to `limit` dead letters with ids above `after_id`, in id order.
  virtual Result<std::vector<DeadLetter>> List(size_t limit, int64_t after_id = 0) = 0;
  // The dead letter `id`, or nullopt when there is none (any more).
  virtual Result<std::optional<DeadLetter>> Get(int64_t id) = 0;
  // Sends dead letters back through the main queue with kReplayHeader set, so they
  // pass every guard again. `ids` empty = all. Audited with `actor`.
  // Returns how many moved. A copy whose record says FAILED runs again only if the
  // store holds its replay grant, which `idem dlq replay` and the console write with
  // their audit row; moved without one, it is parked again.
  virtual Result<int64_t> Replay(const std::vector<int64_t>& ids, const std::string& actor) = 0;
  // Deletes dead letters for good (`ids` empty = all). Audited with `actor`.
  // Returns how many were deleted.
  virtual Result<int64_t> Purge(const std::vector<int64_t>& ids, const std::string& actor) = 0;
};

}  // namespace idem
