#include "sim/faults.h"

namespace idem::sim {

const char* FaultName(Fault f) {
  switch (f) {
    case Fault::kProducerResendSameId: return "producer_resend_same_id";
    case Fault::kProducerResendNewId: return "producer_resend_new_id";
    case Fault::kCrashBeforeHandler: return "crash_before_handler";
    case Fault::kCrashInTransaction: return "crash_in_transaction";
    case Fault::kCrashAfterCommit: return "crash_after_commit_before_ack";
    case Fault::kCrashDuringAck: return "crash_during_ack";
    case Fault::kSlowHandler: return "slow_handler_beyond_lease";
    case Fault::kThrowAfterEffect: return "throw_after_side_effect";
    case Fault::kRebalance: return "rebalance";
    case Fault::kOutOfOrder: return "out_of_order";
    case Fault::kCommitInDoubtLanded: return "commit_in_doubt_landed";
    case Fault::kCommitInDoubtLost: return "commit_in_doubt_lost";
    case Fault::kDatabaseUnavailable: return "database_unavailable";
    case Fault::kHandlerDbError: return "handler_db_error";
    case Fault::kLostAck: return "lost_ack";
    case Fault::kRedisEvict: return "redis_evict";
    case Fault::kRedisEarlyExpiry: return "redis_early_expiry";
    case Fault::kRedisOutage: return "redis_outage";
    case Fault::kRedisFailoverLoss: return "redis_failover_loss";
    case Fault::kPoisonMessage: return "poison_message";
    case Fault::kConflictingPayload: return "conflicting_payload";
    case Fault::kClockJump: return "clock_jump";
    case Fault::kRetryMoveLost: return "retry_move_lost";
    case Fault::kDeadlockVictim: return "deadlock_victim";
    case Fault::kCount: break;
  }
  return "unknown";
}

FaultPlan FaultPlan::Swarm(SimEnv& env) {
  // Caps keep each run making progress while every fault still fires often
  // enough over a few hundred seeds.
  static constexpr double kCap[kFaultCount] = {
      0.15, 0.15,              // resends
      0.04, 0.04, 0.06, 0.04,  // crash points (per batch)
      0.05, 0.08,              // slow, throw
      0.05, 0.3,               // rebalance (per batch), out of order (per poll)
      0.05, 0.05,              // commit in doubt
      0.03, 0.03,              // db unavailable (per batch), handler db error (per statement)
      0.05,                    // lost ack
      0.2, 0.1, 0.03, 0.02,    // redis
      0.05, 0.05,              // poison, conflict (per published message)
      0.02,                    // clock jump (per batch)
      0.3,                     // retry move lost (per retry on the RabbitMQ model)
      0.05,                    // deadlock victim (per claim, statement and commit)
  };
  FaultPlan plan;
  SimEnv later = env.Fork(1);
  for (int i = 0; i < kFaultCount; ++i) {
    SimEnv& dice = i < kFirstLaterFault ? env : later;
    plan.p[i] = dice.Chance(0.5) ? dice.Uniform() * kCap[i] : 0.0;
  }
  return plan;
}

}  // namespace idem::sim
