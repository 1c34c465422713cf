#include "demo/scaled_clock.h"

#include <algorithm>

namespace idem::demo {

ScaledClock::ScaledClock(int64_t start_ms, int64_t speedup, uint64_t seed, Env* real)
    : start_ms_(start_ms),
      speedup_(std::max<int64_t>(speedup, 1)),
      real_(real),
      real_start_us_(real->MonotonicMicros()),
      random_(seed) {}

void ScaledClock::SleepMs(int64_t ms) {
  if (ms <= 0) return;
  const int64_t until = NowMs() + ms;
  real_->SleepMs(ms / speedup_);
  // Whatever the integer division left out is made up at once.
  JumpTo(until);
}

void ScaledClock::JumpTo(int64_t ms) {
  const int64_t now = NowMs();
  if (ms > now) offset_ms_ += ms - now;
}

}  // namespace idem::demo
