// One message's journey through a batch: what the pipeline plans for it and why.
#pragma once

#include <cstdint>
#include <string>

#include "idem/decision.h"
#include "idem/handler.h"
#include "idem/record.h"

namespace idem {

struct BatchItem {
  enum class Plan {
    kRun,        // run the handler (after it ran OK: acknowledge as FIRST)
    kDuplicate,  // already applied: acknowledge
    kCopyOf,     // same key and payload as `primary` earlier in this batch: follows it
    kConflict,   // same key, different payload: park
    kRetry,      // retryable failure: delay tier
    kPark,       // permanent: terminal queue
    kRelease,    // undecided: give back to the broker
    kInFlight,   // another worker holds a live claim: give back until its lease ends
  };

  const Message* msg = nullptr;
  const HandlerSpec* spec = nullptr;
  std::string key;
  std::string fingerprint;
  Payload payload;  // parsed in planning, handed to the handler
  Plan plan = Plan::kPark;
  size_t primary = 0;  // kCopyOf: index of the first copy
  int attempt = 0;     // handler attempt number for this key (1-based)
  bool ran = false;    // the handler ran in this batch's transaction
  bool decided_without_db = false;  // parked in planning; stands even if the transaction fails
  bool filter_marked = false;   // we set its fast-filter marker; Finish must settle it
  bool filtered = false;        // the fast filter said DONE: acknowledged without the database
  bool applied_before = false;  // the record said SUCCEEDED
  RecordStatus expected_status = RecordStatus::kSucceeded;  // what Complete wrote
  std::string reason;
  std::string summary;
  int64_t delay_ms = 0;
  int64_t polled_at_us = 0;

  void Park(std::string why) { plan = Plan::kPark; reason = std::move(why); }
  void Conflict(std::string why) { plan = Plan::kConflict; reason = std::move(why); }
  void Duplicate(std::string why) { plan = Plan::kDuplicate; reason = std::move(why); }
  void Retry(std::string why) { plan = Plan::kRetry; reason = std::move(why); }
  void Release(std::string why, int64_t delay) {
    plan = Plan::kRelease;
    reason = std::move(why);
    delay_ms = delay;
  }
  void InFlight(std::string why, int64_t delay) {
    plan = Plan::kInFlight;
    reason = std::move(why);
    delay_ms = delay;
  }

  Decision ToDecision(const std::string& group) const;
};

}  // namespace idem
