// The outbox relay under the simulator: the real idem::outbox::Relay, stepped
// with the simulated clock, over a FaultyStore (the store faults every consumer
// sees) and a publisher into a SimBroker that can die at the relay's own crash
// points. A relay that dies is started again with empty memory; the rows it had
// claimed wait out their claim window, as they would in production.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ops/outbox/relay.h"
#include "sim/faults.h"
#include "sim/faulty_store.h"
#include "sim/incarnation.h"
#include "sim/sim_broker.h"

namespace idem::sim {

enum class RelayFault : int {
  kCrashInClaim,        // dies inside the claim transaction: nothing claimed
  kCrashBeforePublish,  // the claim committed, nothing published: rows held for the claim window
  kCrashMidPublish,     // part of the batch reached the broker
  kCrashAfterConfirm,   // the broker confirmed the batch, the rows were not marked: all published again
  kPublishRefused,      // the broker refused the batch after storing part of it: backoff, then again
  kSlowPublish,         // the publish outlived the claim window: another relay took the rows too
  kCount
};
inline constexpr int kRelayFaultCount = static_cast<int>(RelayFault::kCount);
const char* RelayFaultName(RelayFault f);

// The relay faults' per-seed rates (swarm, as FaultPlan, drawn from a fork of the
// seed's generator) and how often each fired. One per run, shared by its relays.
class RelayDice {
 public:
  explicit RelayDice(SimEnv* env);
  bool Roll(RelayFault f);
  void Disable() { enabled_ = false; }
  const std::array<int64_t, kRelayFaultCount>& fired() const { return fired_; }

 private:
  SimEnv* env_;
  std::array<double, kRelayFaultCount> p_{};
  std::array<int64_t, kRelayFaultCount> fired_{};
  bool enabled_ = true;
};

struct SimRelayWorld {
  Store* db = nullptr;                 // the run's database (real SQLite)
  FaultDice* dice = nullptr;           // the store faults
  RelayDice* relay_dice = nullptr;     // the relay's own crash points
  int64_t* db_down_until_ms = nullptr;
  SimBroker* broker = nullptr;         // where the relay publishes
  bool marks_before_publishing = false;
};

class SimRelay {
 public:
  SimRelay(const SimRelayWorld& world, outbox::RelayOptions options);
  ~SimRelay();

  // One RelayOnce at the simulated time; restarts the relay if it died.
  // Returns how many rows it claimed (0: nothing was due, or it failed first).
  int64_t Step();
  // Runs while this relay's publish outlives its claim window (the other relays' steps).
  void SetMeanwhile(std::function<void()> meanwhile) { meanwhile_ = std::move(meanwhile); }
  bool busy() const { return busy_; }
  int64_t crashes() const { return crashes_; }

 private:
  class Publisher;
  void Start();

  SimRelayWorld world_;
  outbox::RelayOptions options_;
  std::unique_ptr<Incarnation> life_;
  std::unique_ptr<FaultyStore> store_;
  std::unique_ptr<Publisher> publisher_;
  std::unique_ptr<outbox::Relay> relay_;
  std::function<void()> meanwhile_;
  bool busy_ = false;
  bool die_after_step_ = false;  // the broken relay's crash between its mark and its publish
  int64_t crashes_ = 0;
};

// The simulated relays' options for one seed: small batches and claim windows,
// so crashes, expiries and cleanup all happen within a run.
outbox::RelayOptions SimRelayOptions(SimEnv& env);

// The due time of the earliest PENDING outbox row, read from the database
// directly (no faults); nullopt when none is pending.
std::optional<int64_t> NextOutboxDueMs(Store& db);

}  // namespace idem::sim
