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
  // The records of `keys` not in `skip`, read by `sql` (my_claim.h).
  Result<Found> ReadRecords(std::string_view group, std::span<const ClaimRequest* const> keys, const Found& skip,
                            std::string (*sql)(size_t));

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
  // The claim takes shared locks on existing records and exclusive ones only
  // on the rows it inserts, each sweep in key order (Claim sorts the keys).
  // Shared locks never wait for each other, so two batches sharing keys wait
  // only for a row the other inserted, and one waits for the other instead of
  // each holding what the other wants. (Locking the existing records FOR
  // UPDATE first, and what IGNORE skipped FOR UPDATE after the insert,
  // deadlocked under several workers: two exclusive sweeps in a row broke the
  // key order, and the second turned IGNORE's shared lock exclusive while
  // another batch held one too.)
  // Shared is enough for a finished record: no other transaction can change
  // it until this one ends, so the decision read from it stands, and copies of
  // one finished message in several batches do not wait for each other.
  // 1. Read the existing records in share mode.
  auto existing = ReadRecords(group, keys, {}, ReadSharedSql);
  if (!existing.ok()) return existing.status();
  std::vector<const ClaimRequest*> shaped;
  for (const ClaimRequest* r : keys)
    if (!existing->count(r->key)) shaped.push_back(r);
  if (!shaped.empty()) {
    // 2. Insert the keys that have no record. One another transaction holds
    //    uncommitted makes the insert wait for it, then counts as existing,
    //    locked shared by IGNORE, and is read in share mode too.
    // The keys are padded to a set shape (the last, greatest key repeated): its
    // second copy is one more ignored row.
    const size_t asked = shaped.size();
    PadToSetShape(shaped);
    auto ins = Run(ClaimInsertSql(shaped.size()), ClaimInsertParams(group, shaped, now_ms, lease_until_ms));
    if (!ins.ok()) return ins.status();
    for (const Row& row : ins->rows) (*found)[AsText(row.at(0))].inserted = true;
    const size_t skipped = shaped.size() - ins->rows.size();
    // Every skipped row is one duplicate-key warning. Any other warning is a
    // value IGNORE bent to fit (truncated, NULL made '') — an error here.
    if (ins->warnings != skipped)
      return Status::Permanent("claiming " + std::to_string(asked) + " keys gave " + std::to_string(ins->warnings) +
                               " warnings for " + std::to_string(skipped) + " existing keys: " + conn_->Warnings() +
                               " (a key, fingerprint or message id does not fit the idem_records columns)");
    Found skip = *existing;
    for (const auto& [key, c] : *found) skip.emplace(key, c);
    auto late = ReadRecords(group, keys, skip, ReadSharedSql);
    if (!late.ok()) return late.status();
    for (auto& [key, c] : *late) (*existing)[key] = std::move(c);
  }
  // 3. A record this batch may take over (RELEASED, PROCESSING, FAILED with a
  //    replay grant) is locked FOR UPDATE, before any handler runs: of two
  //    batches retrying one key, one runs it and the other waits and then
  //    sees its outcome — or both held it shared, the database rolls one of
  //    them back, and it reruns. Never may both run it.
  std::vector<const ClaimRequest*> unfinished;
  for (const ClaimRequest* r : keys) {
    auto it = existing->find(r->key);
    if (it != existing->end() && it->second.existing.status != RecordStatus::kSucceeded) unfinished.push_back(r);
  }
  if (!unfinished.empty()) {
    auto locked = ReadRecords(group, unfinished, {}, LockExistingSql);
    if (!locked.ok()) return locked.status();
    for (auto& [key, c] : *locked) (*existing)[key] = std::move(c);
  }
  for (auto& [key, c] : *existing) (*found)[key] = std::move(c);
  return Status::OK();
}

Result<Tx::Found> Tx::ReadRecords(std::string_view group, std::span<const ClaimRequest* const> keys,
                                  const Found& skip, std::string (*sql)(size_t)) {
  std::vector<const ClaimRequest*> shaped;
  for (const ClaimRequest* r : keys)
    if (!skip.count(r->key)) shaped.push_back(r);
  Found out;
  if (shaped.empty()) return out;
  PadToSetShape(shaped);
  std::vector<Value> params{Blob{std::string(group)}};
  for (const ClaimRequest* r : shaped) params.emplace_back(Blob{r->key});
  auto rows = Run(sql(shaped.size()), params);
  if (!rows.ok()) return rows.status();
  for (const Row& row : rows->rows) {
    ClaimResult c;
    c.existing = RecordFromRow(row);
    out[c.existing.key] = std::move(c);
  }
  return out;
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
