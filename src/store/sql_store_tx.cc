#include "store/sql_store_tx.h"

#include <algorithm>

#include "store/record_sql.h"

namespace idem {
namespace {

// A key missing from both the insert and the locking read three times running
// was deleted under us (the sweeper); the caller retries the batch.
constexpr int kClaimPasses = 3;

}  // namespace

Status SqlStoreTx::CheckUsable() const {
  if (done_) return Status::InvalidArgument("the transaction is already committed or rolled back");
  return Broken();
}

Result<int64_t> SqlStoreTx::Exec(std::string_view sql, const std::vector<Value>& params) {
  IDEM_RETURN_IF_ERROR(CheckUsable());
  return RunExec(sql, params);
}

Result<Rows> SqlStoreTx::Query(std::string_view sql, const std::vector<Value>& params) {
  IDEM_RETURN_IF_ERROR(CheckUsable());
  return RunQuery(sql, params);
}

Result<std::vector<ClaimResult>> SqlStoreTx::Claim(std::string_view group, std::span<const ClaimRequest> requests,
                                                   int64_t now_ms, int64_t lease_until_ms) {
  IDEM_RETURN_IF_ERROR(CheckUsable());
  // Key order: concurrent batches insert and lock shared keys in the same
  // order, so they wait for each other instead of deadlocking.
  std::vector<const ClaimRequest*> pending;
  pending.reserve(requests.size());
  for (const ClaimRequest& r : requests) pending.push_back(&r);
  std::sort(pending.begin(), pending.end(), [](auto* a, auto* b) { return a->key < b->key; });

  Found found;
  for (int pass = 0; pass < kClaimPasses && !pending.empty(); ++pass) {
    IDEM_RETURN_IF_ERROR(ClaimPass(group, pending, now_ms, lease_until_ms, &found));
    std::erase_if(pending, [&](const ClaimRequest* r) { return found.count(r->key) > 0; });
  }
  if (!pending.empty())
    return Status::Busy("the record of key '" + pending[0]->key +
                        "' disappeared while it was being claimed (swept concurrently?); retry the batch");
  std::vector<ClaimResult> out(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) out[i] = std::move(found[requests[i].key]);
  return out;
}

Status SqlStoreTx::WriteRecords(std::string_view group, std::span<const RecordWrite> writes, int64_t now_ms) {
  IDEM_RETURN_IF_ERROR(CheckUsable());
  if (writes.empty()) return Status::OK();
  auto n = WriteBatch(group, writes, now_ms);
  if (!n.ok()) return n.status();
  if (*n == static_cast<int64_t>(writes.size())) return Status::OK();
  return record_sql::NameMissingRecord(*this, group, writes);
}

Status SqlStoreTx::Commit() {
  IDEM_RETURN_IF_ERROR(CheckUsable());
  done_ = true;
  Status s = RunCommit();
  // The COMMIT may have been applied before the answer was lost, or may never
  // have arrived: only the records can tell.
  if (s.code() == Status::Code::kUnavailable)
    return Status::InDoubt("COMMIT outcome unknown: " + s.message() +
                           " — re-read the records before acting; never retry blindly");
  return s;
}

void SqlStoreTx::Rollback() {
  if (done_) return;
  done_ = true;
  RunRollback();
}

}  // namespace idem
