// AuditLog: the listable trail of every dead-letter replay and purge, in the
// service's own store (table idem_audit), whoever asked — the browser console
// or `idem dlq`. Each change is written twice: a row before the broker is
// touched ("started") and its outcome after, so a change that crashes halfway
// still leaves a row naming who started it.
//
// The brokers keep their own marks as well (idem_queue_audit, the RabbitMQ
// audit queue, Kafka's hide records); this table is the one that lists all of
// them across brokers with the authenticated identity.
// Thread safety: one AuditLog per thread (it uses one Store connection).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "console/identity.h"
#include "idem/message.h"
#include "idem/status.h"
#include "idem/store.h"

namespace idem::console {

struct AuditEntry {
  int64_t id = 0;
  int64_t at_ms = 0;
  std::string operator_name;
  std::string authenticated_by;
  std::string action;           // "replay" or "purge"
  std::string broker;           // the broker URL, password redacted
  std::string dead_letter_ids;  // "3,7,9" or "all"
  int64_t changed = -1;         // how many moved or were deleted; -1 while started or after a failure
  std::string outcome;          // "started", "ok", or the error
};

class AuditLog {
 public:
  // Creates idem_audit if it is missing. `store` must outlive the log.
  static Result<AuditLog> Open(Store* store);
  // Creates nothing, for reading: in a store without idem_audit (no replay or
  // purge was audited there yet) List returns no row.
  static Result<AuditLog> OpenExisting(Store* store);

  // Writes the "started" row of a change; returns its id. For a replay,
  // `replayed` are the dead letters about to be sent back: a replay grant
  // for each is written in the same transaction (store/replay_grants.h),
  // so no copy runs again without the row that names who replayed it.
  Result<int64_t> Begin(const Identity& who, const std::string& action, const std::string& broker,
                        const std::string& dead_letter_ids, int64_t now_ms,
                        const std::vector<Message>& replayed = {});
  // Records how the change `id` ended.
  Status Finish(int64_t id, int64_t changed, const std::string& outcome);
  // Up to `limit` rows with ids below `before_id` (0: from the newest), newest first.
  Result<std::vector<AuditEntry>> List(size_t limit, int64_t before_id = 0);

 private:
  explicit AuditLog(Store* store, bool table_exists = true) : store_(store), table_exists_(table_exists) {}
  Store* store_;
  bool table_exists_;
};

}  // namespace idem::console
