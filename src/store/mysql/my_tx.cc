#include "store/mysql/my_tx.h"

#include <algorithm>
#include <unordered_map>

#include "core/record_row.h"
#include "store/column_kind.h"
#include "store/mysql/my_claim.h"
#include "store/dialects.h"
#include "store/record_sql.h"
#include "store/set_shape.h"

namespace idem::mysql {
namespace {

// A key missing from both the insert and the locking read three times running
// was deleted under us (the sweeper); the caller retries the batch.
constexpr int kClaimPasses = 3;

class Tx final : public StoreTx {
 public:
  Tx(Conn* conn, uint64_t id) : conn_(conn), id_(id) {}
  ~Tx() override { Rollback(); }

  Result<int64_t> Exec(std::string_view sql, const std::vector<Value>& params) override {
    auto out = Run(sql, params);
    if (!out.ok()) return out.status();
    return out->affected;
  }

  Result<Rows> Query(std::string_view sql, const std::vector<Value>& params) override {
    auto out = Run(sql, params);
    if (!out.ok()) return out.status();
    return std::move(out->rows);
  }

  // Savepoint names are chosen by code (SqlTx's contract), never by message content.
  Status Savepoint(std::string_view name) override { return Command("SAVEPOINT ", name); }
  Status RollbackTo(std::string_view name) override { return Command("ROLLBACK TO SAVEPOINT ", name); }
  Status Release(std::string_view name) override { return Command("RELEASE SAVEPOINT ", name); }
  const SqlDialect& Dialect() const override { return MysqlDialect(); }

  Result<std::optional<std::vector<TableColumn>>> DescribeTable(std::string_view table) override {
    auto rows = Query(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = DATABASE() "
        "AND table_name = ? ORDER BY ordinal_position",
        {std::string(table)});
    if (!rows.ok()) return rows.status();
    return ColumnsFromRows(*rows, &MySqlColumnKind);
  }

  Result<std::vector<ClaimResult>> Claim(std::string_view group, std::span<const ClaimRequest> requests,
                                         int64_t now_ms, int64_t lease_until_ms) override;

  Status TakeOver(std::string_view group, const ClaimRequest& req, int64_t now_ms,
                  int64_t lease_until_ms) override {
    return record_sql::TakeOver(*this, group, req, now_ms, lease_until_ms);
  }

  Status Complete(std::string_view group, std::span<const Completion> completions, int64_t now_ms) override;

  Status NoteDuplicate(std::string_view group, std::string_view key, int64_t now_ms) override {
    return record_sql::NoteDuplicate(*this, group, key, now_ms);
  }

  Status Commit() override {
    IDEM_RETURN_IF_ERROR(CheckUsable());
    done_ = true;
    Status s = conn_->Command("COMMIT");
    conn_->TransactionEnded(id_);
    // The COMMIT may have been applied before the answer was lost (2013) or
    // may never have arrived (2006): only the records can tell.
    if (s.code() == Status::Code::kUnavailable)
      return Status::InDoubt("COMMIT outcome unknown: " + s.message() +
                             " — re-read the records before acting; never retry blindly");
    return s;
  }

  void Rollback() override {
    if (done_) return;
    done_ = true;
    if (broken_.ok() && conn_->Healthy()) (void)conn_->Command("ROLLBACK");
    conn_->TransactionEnded(id_);
  }

 private:
  // A deadlock victim's transaction is gone on the server, savepoints included,
  // and a lost connection took it along: every later statement would run
  // outside it (and autocommit), so they are refused with the first error.
  Status CheckUsable() const {
    if (done_) return Status::InvalidArgument("the transaction is already committed or rolled back");
    return broken_;
  }
  void NoteFailure(const Status& s) {
    if (!s.IsTransactionConflict() && s.code() != Status::Code::kUnavailable) return;
    conn_->TransactionEnded(id_);  // the server ended it
    broken_ = s.IsTransactionConflict()
                    ? Status::TransactionConflict("the transaction was rolled back by the server after: " +
                                                  s.message())
                    : Status::Unavailable("the transaction was lost with its connection: " + s.message());
  }
  Result<Outcome> Run(std::string_view sql, const std::vector<Value>& params) {
    IDEM_RETURN_IF_ERROR(CheckUsable());
    auto out = conn_->Run(sql, params);
    if (!out.ok()) NoteFailure(out.status());
    return out;
  }
  Status Command(std::string_view verb, std::string_view name) {
    IDEM_RETURN_IF_ERROR(CheckUsable());
    Status s = conn_->Command(std::string(verb) + std::string(name));
    NoteFailure(s);
    return s;
  }

  Conn* conn_;
  uint64_t id_;
  bool done_ = false;
  Status broken_;
};

Result<std::vector<ClaimResult>> Tx::Claim(std::string_view group, std::span<const ClaimRequest> requests,
                                           int64_t now_ms, int64_t lease_until_ms) {
  IDEM_RETURN_IF_ERROR(CheckUsable());
  // Key order: concurrent batches insert and lock shared keys in the same
  // order, so they wait for each other instead of deadlocking.
  std::vector<const ClaimRequest*> pending;
  pending.reserve(requests.size());
  for (const ClaimRequest& r : requests) pending.push_back(&r);
  std::sort(pending.begin(), pending.end(), [](auto* a, auto* b) { return a->key < b->key; });

  std::unordered_map<std::string, ClaimResult> found;
  for (int pass = 0; pass < kClaimPasses && !pending.empty(); ++pass) {
    // 1. Lock and read the existing ones first: FOR UPDATE, so no other worker
    //    can take them over or complete them before this transaction ends. (The
    //    other order deadlocked: INSERT IGNORE takes a shared lock on each
    //    duplicate key, and two workers holding one on the same record both
    //    waited to make it exclusive.)
    // Both statements take the pending keys padded to a set shape (the last,
    // greatest key repeated): a repeated key locks and reads no other record,
    // and its second copy is one more ignored row.
    std::vector<const ClaimRequest*> shaped = pending;
    PadToSetShape(shaped);
    std::vector<Value> params{Blob{std::string(group)}};
    for (const ClaimRequest* r : shaped) params.emplace_back(Blob{r->key});
    auto old = Run(LockExistingSql(shaped.size()), params);
    if (!old.ok()) return old.status();
    for (const Row& row : old->rows) {
      ClaimResult c;
      c.existing = RecordFromRow(row);
      found[c.existing.key] = std::move(c);
    }
    std::erase_if(pending, [&](const ClaimRequest* r) { return found.count(r->key) > 0; });
    if (pending.empty()) break;
    // 2. Insert the keys that have no record. A key another transaction holds
    //    uncommitted makes the insert wait for it, then counts as existing: the
    //    next pass locks and reads it.
    shaped = pending;
    PadToSetShape(shaped);
    auto ins = Run(ClaimInsertSql(shaped.size()), ClaimInsertParams(group, shaped, now_ms, lease_until_ms));
    if (!ins.ok()) return ins.status();
    for (const Row& row : ins->rows) found[AsText(row.at(0))].inserted = true;
    const size_t skipped = shaped.size() - ins->rows.size();
    // Every skipped row is one duplicate-key warning. Any other warning is a
    // value IGNORE bent to fit (truncated, NULL made '') — an error here.
    if (ins->warnings != skipped)
      return Status::Permanent("claiming " + std::to_string(pending.size()) + " keys gave " +
                               std::to_string(ins->warnings) + " warnings for " + std::to_string(skipped) +
                               " existing keys: " + conn_->Warnings() +
                               " (a key, fingerprint or message id does not fit the idem_records columns)");
    std::erase_if(pending, [&](const ClaimRequest* r) { return found.count(r->key) > 0; });
  }
  if (!pending.empty())
    return Status::Busy("the record of key '" + pending[0]->key +
                        "' disappeared while it was being claimed (swept concurrently?); retry the batch");
  std::vector<ClaimResult> out(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) out[i] = std::move(found[requests[i].key]);
  return out;
}

Status Tx::Complete(std::string_view group, std::span<const Completion> completions, int64_t now_ms) {
  IDEM_RETURN_IF_ERROR(CheckUsable());
  if (completions.empty()) return Status::OK();
  // Padded to a set shape with the last completion: its repeated key matches no other record.
  std::vector<Completion> shaped(completions.begin(), completions.end());
  PadToSetShape(shaped);
  auto n = Exec(CompleteSql(shaped.size()), CompleteParams(group, shaped, now_ms));
  if (!n.ok()) return n.status();
  if (*n == static_cast<int64_t>(completions.size())) return Status::OK();
  // Some record is missing: name it.
  for (const Completion& c : completions) {
    auto rows = Query("SELECT 1 FROM idem_records WHERE consumer_group = ? AND `key` = ?",
                      {Blob{std::string(group)}, Blob{std::string(c.key)}});
    if (!rows.ok()) return rows.status();
    if (rows->empty()) return Status::NotFound("record to complete is missing: " + std::string(c.key));
  }
  return Status::OK();
}

}  // namespace

std::unique_ptr<StoreTx> NewTx(Conn* conn, uint64_t id) { return std::make_unique<Tx>(conn, id); }

}  // namespace idem::mysql
