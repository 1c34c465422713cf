#include "store/mysql/my_tx.h"

#include <algorithm>

#include "core/record_row.h"
#include "store/column_kind.h"
#include "store/mysql/my_claim.h"
#include "store/dialects.h"
#include "store/record_sql.h"
#include "store/set_shape.h"
#include "store/sql_store_tx.h"

namespace idem::mysql {
namespace {

class Tx final : public SqlStoreTx {
 public:
  Tx(Conn* conn, uint64_t id) : conn_(conn), id_(id) {}
  ~Tx() override { Rollback(); }

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

 protected:
  Result<int64_t> RunExec(std::string_view sql, const std::vector<Value>& params) override {
    auto out = Run(sql, params);
    if (!out.ok()) return out.status();
    return out->affected;
  }

  Result<Rows> RunQuery(std::string_view sql, const std::vector<Value>& params) override {
    auto out = Run(sql, params);
    if (!out.ok()) return out.status();
    return std::move(out->rows);
  }

  Status ClaimPass(std::string_view group, std::span<const ClaimRequest* const> keys, int64_t now_ms,
                   int64_t lease_until_ms, Found* found) override;
  Result<int64_t> WriteBatch(std::string_view group, std::span<const RecordWrite> writes, int64_t now_ms) override;

  Status RunCommit() override {
    Status s = conn_->Command("COMMIT");
    conn_->TransactionEnded(id_);
    return s;  // Unavailable: lost before (2006) or after (2013) it was applied
  }

  void RunRollback() override {
    if (broken_.ok() && conn_->Healthy()) (void)conn_->Command("ROLLBACK");
    conn_->TransactionEnded(id_);
  }

  // A deadlock victim's transaction is gone on the server, savepoints included,
  // and a lost connection took it along: every later statement would run
  // outside it (and autocommit), so they are refused with the first error.
  Status Broken() const override { return broken_; }

 private:
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
  Status broken_;
};

Status Tx::ClaimPass(std::string_view group, std::span<const ClaimRequest* const> keys, int64_t now_ms,
                     int64_t lease_until_ms, Found* found) {
  // 1. Lock and read the existing ones first: FOR UPDATE, so no other worker
  //    can take them over or complete them before this transaction ends. (The
  //    other order deadlocked: INSERT IGNORE takes a shared lock on each
  //    duplicate key, and two workers holding one on the same record both
  //    waited to make it exclusive.)
  // Both statements take the keys padded to a set shape (the last, greatest
  // key repeated): a repeated key locks and reads no other record, and its
  // second copy is one more ignored row.
  std::vector<const ClaimRequest*> shaped(keys.begin(), keys.end());
  PadToSetShape(shaped);
  std::vector<Value> params{Blob{std::string(group)}};
  for (const ClaimRequest* r : shaped) params.emplace_back(Blob{r->key});
  auto old = Run(LockExistingSql(shaped.size()), params);
  if (!old.ok()) return old.status();
  for (const Row& row : old->rows) {
    ClaimResult c;
    c.existing = RecordFromRow(row);
    (*found)[c.existing.key] = std::move(c);
  }
  std::vector<const ClaimRequest*> pending;
  for (const ClaimRequest* r : keys)
    if (!found->count(r->key)) pending.push_back(r);
  if (pending.empty()) return Status::OK();
  // 2. Insert the keys that have no record. A key another transaction holds
  //    uncommitted makes the insert wait for it, then counts as existing: the
  //    next pass locks and reads it.
  shaped = pending;
  PadToSetShape(shaped);
  auto ins = Run(ClaimInsertSql(shaped.size()), ClaimInsertParams(group, shaped, now_ms, lease_until_ms));
  if (!ins.ok()) return ins.status();
  for (const Row& row : ins->rows) (*found)[AsText(row.at(0))].inserted = true;
  const size_t skipped = shaped.size() - ins->rows.size();
  // Every skipped row is one duplicate-key warning. Any other warning is a
  // value IGNORE bent to fit (truncated, NULL made '') — an error here.
  if (ins->warnings != skipped)
    return Status::Permanent("claiming " + std::to_string(pending.size()) + " keys gave " +
                             std::to_string(ins->warnings) + " warnings for " + std::to_string(skipped) +
                             " existing keys: " + conn_->Warnings() +
                             " (a key, fingerprint or message id does not fit the idem_records columns)");
  return Status::OK();
}

// At most two statements: one UPDATE for the completions, one for the touches.
// Each set is padded to a set shape with its last write: its repeated key
// matches no other record.
Result<int64_t> Tx::WriteBatch(std::string_view group, std::span<const RecordWrite> writes, int64_t now_ms) {
  std::vector<RecordWrite> completions;
  std::vector<std::string_view> touches;
  for (const RecordWrite& w : writes) {
    if (w.kind == RecordWrite::Kind::kTouch) touches.push_back(w.key);
    else completions.push_back(w);
  }
  int64_t written = 0;
  if (!completions.empty()) {
    PadToSetShape(completions);
    const bool takes_over = std::any_of(completions.begin(), completions.end(),
                                        [](const RecordWrite& w) { return !w.message_id.empty(); });
    auto n = Exec(CompleteSql(completions.size(), takes_over), CompleteParams(group, completions, takes_over, now_ms));
    if (!n.ok()) return n.status();
    written += *n;
  }
  if (!touches.empty()) {
    PadToSetShape(touches);
    auto n = Exec(TouchSql(touches.size()), TouchParams(group, touches, now_ms));
    if (!n.ok()) return n.status();
    written += *n;
  }
  return written;
}

}  // namespace

std::unique_ptr<StoreTx> NewTx(Conn* conn, uint64_t id) { return std::make_unique<Tx>(conn, id); }

}  // namespace idem::mysql
