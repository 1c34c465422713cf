// Watches an embedded queue file drain, from outside the consumer: the moment
// the first batch was acknowledged (its rows left the queue), how many messages
// were still there then, and the moment the last one left. The same watch
// times a consumer in this process and one in another process (`idem run`), so
// both are measured from their first settled message to their last in the
// same way, and neither's start-up or shutdown is counted.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "idem/status.h"

namespace idem::bench {

struct QueueDrain {
  int64_t first_settled_us = 0;  // monotonic: the first look that found the first message gone
  int64_t left_at_first = 0;     // messages still queued at that look
  int64_t drained_us = 0;        // monotonic: the first look that found the queue empty
  double seconds() const { return static_cast<double>(drained_us - first_settled_us) / 1e6; }
  // Messages settled from the first look to the last, per second.
  double msgs_per_s() const { return seconds() > 0 ? static_cast<double>(left_at_first) / seconds() : 0; }
};

struct QueueDrainOptions {
  int64_t every_us = 2'000;     // between looks (one indexed read each)
  int64_t stall_ms = 20'000;    // the queue did not move this long: the consumer is stuck
  // Called between looks; returning an error ends the watch with it (e.g. the
  // consumer process exited before the queue was empty).
  std::function<Status()> still_running;
};

// Watches the idem_queue table of the SQLite file `path`, which holds the
// messages published before the consumer started, until it is empty.
Result<QueueDrain> WatchQueueDrain(const std::string& path, const QueueDrainOptions& options);

}  // namespace idem::bench
