#include "sim/faulty_store.h"

namespace idem::sim {
namespace {

Status Dead() { return Status::Unavailable("simulated crash: the consumer process is gone"); }
Status DeadlockVictim(std::string_view what) {
  return Status::TransactionConflict("simulated: deadlock detected in " + std::string(what) + " [SQLSTATE 40P01]");
}

class FaultyTx final : public StoreTx {
 public:
  FaultyTx(std::unique_ptr<StoreTx> inner, FaultDice* dice, Incarnation* life)
      : inner_(std::move(inner)), dice_(dice), life_(life) {}
  ~FaultyTx() override { inner_->Rollback(); }  // a dead process's connection rolls back too

  // Handler statements: where a crash inside the transaction or a statement error strikes.
  Result<int64_t> Exec(std::string_view sql, const std::vector<Value>& params) override {
    IDEM_RETURN_IF_ERROR(Statement());
    return inner_->Exec(sql, params);
  }
  Result<Rows> Query(std::string_view sql, const std::vector<Value>& params) override {
    IDEM_RETURN_IF_ERROR(Statement());
    return inner_->Query(sql, params);
  }
  Status Savepoint(std::string_view n) override { return life_->crashed ? Dead() : inner_->Savepoint(n); }
  Status RollbackTo(std::string_view n) override { return life_->crashed ? Dead() : inner_->RollbackTo(n); }
  Status Release(std::string_view n) override { return life_->crashed ? Dead() : inner_->Release(n); }
  const SqlDialect& Dialect() const override { return inner_->Dialect(); }
  Result<std::optional<std::vector<TableColumn>>> DescribeTable(std::string_view table) override {
    if (life_->crashed) return Dead();
    return inner_->DescribeTable(table);
  }

  Result<std::vector<ClaimResult>> Claim(std::string_view group, std::span<const ClaimRequest> reqs, int64_t now,
                                         int64_t lease) override {
    if (life_->crashed) return Dead();
    if (dice_->Roll(Fault::kDeadlockVictim)) return DeadlockVictim("the batch claim");
    return inner_->Claim(group, reqs, now, lease);
  }
  Status WriteRecords(std::string_view group, std::span<const RecordWrite> writes, int64_t now) override {
    if (life_->crashed || life_->CrashAt(CrashPoint::kInTransaction)) return Dead();
    return inner_->WriteRecords(group, writes, now);
  }

  Status Commit() override {
    if (life_->crashed) {
      inner_->Rollback();
      return Dead();
    }
    if (dice_->Roll(Fault::kDeadlockVictim)) {  // a serialization failure at COMMIT: nothing was saved
      inner_->Rollback();
      return DeadlockVictim("COMMIT");
    }
    if (dice_->Roll(Fault::kCommitInDoubtLost)) {
      inner_->Rollback();
      return Status::InDoubt("simulated: connection lost during COMMIT (it did not reach the database)");
    }
    Status s = inner_->Commit();
    if (!s.ok()) return s;
    if (life_->CrashAt(CrashPoint::kAfterCommit)) return Status::OK();  // the process dies on the way out
    if (dice_->Roll(Fault::kCommitInDoubtLanded))
      return Status::InDoubt("simulated: connection lost during COMMIT (it had committed)");
    return s;
  }
  void Rollback() override { inner_->Rollback(); }

 private:
  Status Statement() {
    if (life_->crashed || life_->CrashAt(CrashPoint::kInTransaction)) return Dead();
    if (dice_->Roll(Fault::kHandlerDbError)) return Status::Unavailable("simulated database error in a statement");
    if (dice_->Roll(Fault::kDeadlockVictim)) return DeadlockVictim("a handler's statement");
    return Status::OK();
  }

  std::unique_ptr<StoreTx> inner_;
  FaultDice* dice_;
  Incarnation* life_;
};

}  // namespace

Status FaultyStore::Available() {
  if (life_->crashed || life_->CrashAt(CrashPoint::kBeforeHandler)) return Dead();
  const int64_t now = dice_->env().NowMs();
  if (now < *down_until_ms_) return Status::Unavailable("simulated database outage");
  if (dice_->Roll(Fault::kDatabaseUnavailable)) {
    *down_until_ms_ = now + dice_->env().Range(100, 20'000);
    return Status::Unavailable("simulated database outage (starting)");
  }
  return Status::OK();
}

Result<std::unique_ptr<StoreTx>> FaultyStore::Begin() {
  IDEM_RETURN_IF_ERROR(Available());
  auto tx = inner_->Begin();
  if (!tx.ok()) return tx.status();
  return std::unique_ptr<StoreTx>(new FaultyTx(std::move(*tx), dice_, life_));
}

Result<std::optional<Record>> FaultyStore::ReadRecord(std::string_view group, std::string_view key) {
  if (life_->crashed) return Dead();
  if (dice_->env().NowMs() < *down_until_ms_) return Status::Unavailable("simulated database outage");
  return inner_->ReadRecord(group, key);
}

}  // namespace idem::sim
