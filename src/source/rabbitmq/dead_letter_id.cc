#include "source/rabbitmq/dead_letter_id.h"

#include <algorithm>

namespace idem::rabbitmq {
namespace {

// 43 bits of Unix milliseconds last until the year 2248; no custom epoch, so a
// clock (or a test clock) set to any time since 1970 still gives ordered ids.
int64_t Compose(int64_t ms, int64_t low20) { return (std::max<int64_t>(ms, 0) << 20) | low20; }

}  // namespace

DeadLetterIds::DeadLetterIds(Env* env) : env_(env), instance_(static_cast<int64_t>(env->Random64() & 0x3ff)) {}

int64_t DeadLetterIds::Next() {
  int64_t ms = std::max(env_->NowMs(), last_ms_);
  if (ms == last_ms_) {
    // A full millisecond borrows the next one rather than repeat an id.
    if (++seq_ > 0x3ff) {
      ++ms;
      seq_ = 0;
    }
  } else {
    seq_ = 0;
  }
  last_ms_ = ms;
  return Compose(ms, (instance_ << 10) | seq_);
}

int64_t DeadLetterIds::Derived(int64_t time_ms, uint64_t hash) {
  return Compose(time_ms, static_cast<int64_t>(hash & 0xfffff));
}

int64_t DeadLetterIds::TimeMsOf(int64_t id) { return id >> 20; }

}  // namespace idem::rabbitmq
