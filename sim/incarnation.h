// One life of a consumer process. A crash point planned for the next batch
// fires inside the store, source or filter wrappers; from then on the process
// is dead: every call fails, nothing it still tries reaches the world, and the
// simulator starts a new incarnation with empty memory.
#pragma once

namespace idem::sim {

enum class CrashPoint { kNone, kBeforeHandler, kInTransaction, kAfterCommit, kDuringAck };

struct Incarnation {
  bool crashed = false;
  CrashPoint planned = CrashPoint::kNone;

  // True (and the process is now dead) if `point` is the one planned.
  bool CrashAt(CrashPoint point) {
    if (crashed || planned != point) return false;
    crashed = true;
    return true;
  }
};

}  // namespace idem::sim
