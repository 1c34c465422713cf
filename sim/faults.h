// The faults the simulator can inject, their per-seed probabilities (swarm
// testing: each seed enables a random subset at random rates), and how often
// each one actually fired (coverage).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "sim/sim_env.h"

namespace idem::sim {

enum class Fault : int {
  kProducerResendSameId,  // producer resend
  kProducerResendNewId,   // producer resend
  kCrashBeforeHandler,    // a consumer dies at one of four points
  kCrashInTransaction,
  kCrashAfterCommit,
  kCrashDuringAck,
  kSlowHandler,           // Processing outlives the visibility timeout
  kThrowAfterEffect,      // throw after a side effect
  kRebalance,             // rebalance
  kOutOfOrder,            // out of order
  kCommitInDoubtLanded,   // COMMIT reached the database, the answer was lost
  kCommitInDoubtLost,     // COMMIT never reached the database
  kDatabaseUnavailable,
  kHandlerDbError,
  kLostAck,
  kRedisEvict,            // Redis loses keys
  kRedisEarlyExpiry,
  kRedisOutage,           // Redis outage
  kRedisFailoverLoss,
  kPoisonMessage,
  kConflictingPayload,    // same key, other payload
  kClockJump,
  kRetryMoveLost,         // RabbitMQ: a failed attempt is committed, its move to the delay tier is lost
  kDeadlockVictim,        // the database kills a claim, statement or commit to break a deadlock
  kCount
};

inline constexpr int kFaultCount = static_cast<int>(Fault::kCount);
// Faults from here on were added after seeds were saved: their rates are drawn
// from a fork of the seed's generator, so the saved seeds keep their runs.
inline constexpr int kFirstLaterFault = static_cast<int>(Fault::kRetryMoveLost);
const char* FaultName(Fault f);

struct FaultPlan {
  std::array<double, kFaultCount> p{};  // probability per opportunity, 0 = disabled for this seed

  // Swarm: every fault is enabled with probability 1/2, at a rate up to its cap.
  static FaultPlan Swarm(SimEnv& env);
  double operator[](Fault f) const { return p[static_cast<int>(f)]; }
};

struct Coverage {
  std::array<int64_t, kFaultCount> fired{};
  void Fire(Fault f) { fired[static_cast<int>(f)]++; }
  void Add(const Coverage& o) {
    for (int i = 0; i < kFaultCount; ++i) fired[i] += o.fired[i];
  }
};

// Draws the fault with its seed's probability and records it when it fires.
class FaultDice {
 public:
  FaultDice(SimEnv* env, const FaultPlan* plan, Coverage* coverage) : env_(env), plan_(plan), cov_(coverage) {}
  bool Roll(Fault f) {
    if (!enabled_ || !env_->Chance((*plan_)[f])) return false;
    cov_->Fire(f);
    return true;
  }
  // While draining at the end of a run, no new faults fire, so the run ends.
  void Disable() { enabled_ = false; }
  SimEnv& env() { return *env_; }

 private:
  SimEnv* env_;
  const FaultPlan* plan_;
  Coverage* cov_;
  bool enabled_ = true;
};

}  // namespace idem::sim
