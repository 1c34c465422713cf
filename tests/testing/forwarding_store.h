// A Store whose transactions pass every call to a real store's, for tests that
// inject a failure at one point: derive from ForwardingTx, override that call,
// and return the derived transaction from ForwardingStore::Wrap.
#pragma once

#include <memory>

#include "idem/store.h"

namespace idem::testing {

class ForwardingTx : public StoreTx {
 public:
  explicit ForwardingTx(std::unique_ptr<StoreTx> inner) : inner_(std::move(inner)) {}
  Result<int64_t> Exec(std::string_view sql, const std::vector<Value>& p) override { return inner_->Exec(sql, p); }
  Result<Rows> Query(std::string_view sql, const std::vector<Value>& p) override { return inner_->Query(sql, p); }
  Status Savepoint(std::string_view n) override { return inner_->Savepoint(n); }
  Status RollbackTo(std::string_view n) override { return inner_->RollbackTo(n); }
  Status Release(std::string_view n) override { return inner_->Release(n); }
  const SqlDialect& Dialect() const override { return inner_->Dialect(); }
  Result<std::optional<std::vector<TableColumn>>> DescribeTable(std::string_view table) override {
    return inner_->DescribeTable(table);
  }
  Result<std::vector<ClaimResult>> Claim(std::string_view g, std::span<const ClaimRequest> r, int64_t now,
                                         int64_t lease) override {
    return inner_->Claim(g, r, now, lease);
  }
  Status WriteRecords(std::string_view g, std::span<const RecordWrite> w, int64_t now) override {
    return inner_->WriteRecords(g, w, now);
  }
  Status Commit() override { return inner_->Commit(); }
  void Rollback() override { inner_->Rollback(); }

 protected:
  std::unique_ptr<StoreTx> inner_;
};

class ForwardingStore : public Store {
 public:
  explicit ForwardingStore(Store* inner) : inner_(inner) {}
  Result<std::unique_ptr<StoreTx>> Begin() override {
    auto tx = inner_->Begin();
    if (!tx.ok()) return tx.status();
    return Wrap(std::move(*tx));
  }
  Result<std::optional<Record>> ReadRecord(std::string_view g, std::string_view k) override {
    return inner_->ReadRecord(g, k);
  }
  Result<int64_t> SweepRecords(int64_t t, int64_t n) override { return inner_->SweepRecords(t, n); }
  Status ExecScript(std::string_view sql) override { return inner_->ExecScript(sql); }
  Result<SchemaReport> CheckSchema() override { return inner_->CheckSchema(); }
  Result<SchemaReport> MigrateSchema() override { return inner_->MigrateSchema(); }
  const SqlDialect& Dialect() const override { return inner_->Dialect(); }

 protected:
  // The transaction the pipeline gets in place of `tx`.
  virtual std::unique_ptr<StoreTx> Wrap(std::unique_ptr<StoreTx> tx) = 0;

 private:
  Store* inner_;
};

}  // namespace idem::testing
