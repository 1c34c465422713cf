// The transaction shell every SQL server store shares (PostgreSQL, MySQL): the
// open/done checks, the claim passes in key order, the count of the records a
// batch's write found, and COMMIT's lost answer turned into an in-doubt
// outcome. An engine supplies only its statements.
#pragma once

#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "idem/store.h"

namespace idem {

class SqlStoreTx : public StoreTx {
 public:
  Result<int64_t> Exec(std::string_view sql, const std::vector<Value>& params) final;
  Result<Rows> Query(std::string_view sql, const std::vector<Value>& params) final;
  Result<std::vector<ClaimResult>> Claim(std::string_view group, std::span<const ClaimRequest> requests,
                                         int64_t now_ms, int64_t lease_until_ms) final;
  Status WriteRecords(std::string_view group, std::span<const RecordWrite> writes, int64_t now_ms) final;
  Status Commit() final;
  void Rollback() final;  // an engine's destructor calls it (virtual calls do not reach it from here)

 protected:
  using Found = std::unordered_map<std::string, ClaimResult>;

  // Why no statement may run now: the transaction is over, or (Broken) the
  // server ended it.
  Status CheckUsable() const;

  // The engine's statements, run only while the transaction is usable.
  virtual Result<int64_t> RunExec(std::string_view sql, const std::vector<Value>& params) = 0;
  virtual Result<Rows> RunQuery(std::string_view sql, const std::vector<Value>& params) = 0;
  // One pass of the claim over `pending` (distinct keys, in key order): adds to
  // `found` every key it inserted (inserted = true) or read and locked FOR
  // UPDATE (its record). A key in neither — a row another transaction
  // committed, or deleted, while this one waited — is tried again next pass.
  virtual Status ClaimPass(std::string_view group, std::span<const ClaimRequest* const> pending, int64_t now_ms,
                           int64_t lease_until_ms, Found* found) = 0;
  // Writes `writes` (at least one) in as few statements as the engine allows;
  // returns how many records they changed.
  virtual Result<int64_t> WriteBatch(std::string_view group, std::span<const RecordWrite> writes,
                                     int64_t now_ms) = 0;
  // COMMIT; Unavailable when the answer was lost.
  virtual Status RunCommit() = 0;
  virtual void RunRollback() = 0;
  // Not OK once the server ended the transaction (a deadlock victim, a lost
  // connection): later statements would run outside it, so they are refused.
  virtual Status Broken() const { return Status::OK(); }

 private:
  bool done_ = false;
};

}  // namespace idem
