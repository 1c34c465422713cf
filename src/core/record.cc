#include "core/record_row.h"
#include "idem/record.h"

namespace idem {

std::string_view RecordStatusName(RecordStatus s) {
  switch (s) {
    case RecordStatus::kProcessing: return "PROCESSING";
    case RecordStatus::kSucceeded: return "SUCCEEDED";
    case RecordStatus::kFailed: return "FAILED";
    case RecordStatus::kReleased: return "RELEASED";
  }
  return "UNKNOWN";
}

bool ParseRecordStatus(std::string_view name, RecordStatus* out) {
  for (RecordStatus s : {RecordStatus::kProcessing, RecordStatus::kSucceeded, RecordStatus::kFailed,
                         RecordStatus::kReleased}) {
    if (RecordStatusName(s) == name) {
      *out = s;
      return true;
    }
  }
  return false;
}

Record RecordFromRow(const Row& row) {
  Record r;
  r.consumer_group = AsText(row.at(0));
  r.key = AsText(row.at(1));
  // An unknown status cannot be written (CHECK constraint); PROCESSING is the safe reading.
  ParseRecordStatus(AsText(row.at(2)), &r.status);
  r.fingerprint = AsText(row.at(3));
  r.message_id = AsText(row.at(4));
  r.attempts = static_cast<int>(AsInt(row.at(5)));
  r.duplicates = static_cast<int>(AsInt(row.at(6)));
  r.lease_until_ms = AsInt(row.at(7));
  r.first_seen_ms = AsInt(row.at(8));
  r.last_seen_ms = AsInt(row.at(9));
  r.last_error = AsText(row.at(10));
  r.result_summary = AsText(row.at(11));
  return r;
}

}  // namespace idem
