// Dead-letter ids: int64 values idem stamps in x-idem-dead-id when it parks a
// message, so the console can name a dead letter that lives in a broker queue.
//
// Layout (Snowflake-like, so ids sort by parking time and need no coordination):
//   bits 62..20  milliseconds since the Unix epoch
//   bits 19..10  this process's instance number (random)
//   bits  9..0   sequence within the millisecond
// A message the broker dead-lettered by itself has no stamp; Derived() builds its
// id from the x-death time and a hash of the message, stable while it sits there.
#pragma once

#include <cstdint>

#include "idem/env.h"

namespace idem::rabbitmq {

class DeadLetterIds {
 public:
  explicit DeadLetterIds(Env* env);
  int64_t Next();
  static int64_t Derived(int64_t time_ms, uint64_t hash);
  // When the id was made (milliseconds since the Unix epoch).
  static int64_t TimeMsOf(int64_t id);

 private:
  Env* env_;
  int64_t instance_;
  int64_t last_ms_ = 0;
  int64_t seq_ = 0;
};

}  // namespace idem::rabbitmq
