// The consumption record: the durable guard.
//
// Thread safety: a Record is a plain value, and the functions keep no state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace idem {

enum class RecordStatus {
  kProcessing,  // claimed; lease_until_ms says when another worker may take over
  kSucceeded,   // effects committed; every later copy is a DUPLICATE
  kFailed,      // permanent failure, parked; kept for manual handling (replay may retry it)
  kReleased,    // a retryable failure released the claim; the next copy may claim it
};

std::string_view RecordStatusName(RecordStatus s);
bool ParseRecordStatus(std::string_view name, RecordStatus* out);

struct Record {
  std::string consumer_group;
  std::string key;
  RecordStatus status = RecordStatus::kProcessing;
  std::string fingerprint;
  std::string message_id;    // broker id of the copy that last claimed it
  int attempts = 0;          // handler executions that ended (ok or failed)
  int duplicates = 0;        // copies acknowledged as duplicates
  int64_t lease_until_ms = 0;
  int64_t first_seen_ms = 0;
  int64_t last_seen_ms = 0;
  std::string last_error;
  std::string result_summary;
};

}  // namespace idem
