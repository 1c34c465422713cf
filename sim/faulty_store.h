// FaultyStore: the real store (SQLite, in memory) behind a wrapper that injects
// database outages, statement errors, deadlock victims (claim, statement or
// commit), commits whose answer is lost (landed or not), and the crash points of
// the current consumer incarnation.
#pragma once

#include <memory>

#include "idem/store.h"
#include "sim/faults.h"
#include "sim/incarnation.h"

namespace idem::sim {

class FaultyStore final : public Store {
 public:
  // `down_until_ms` is shared by all consumers: an outage is the database's, not a process's.
  FaultyStore(Store* inner, FaultDice* dice, Incarnation* life, int64_t* down_until_ms)
      : inner_(inner), dice_(dice), life_(life), down_until_ms_(down_until_ms) {}

  Result<std::unique_ptr<StoreTx>> Begin() override;
  Result<std::optional<Record>> ReadRecord(std::string_view group, std::string_view key) override;
  Result<int64_t> SweepRecords(int64_t older_than_ms, int64_t max_rows) override {
    return inner_->SweepRecords(older_than_ms, max_rows);
  }
  Status ExecScript(std::string_view sql) override { return inner_->ExecScript(sql); }
  Result<SchemaReport> CheckSchema() override { return inner_->CheckSchema(); }
  Result<SchemaReport> MigrateSchema() override { return inner_->MigrateSchema(); }
  const SqlDialect& Dialect() const override { return inner_->Dialect(); }

 private:
  Status Available();

  Store* inner_;
  FaultDice* dice_;
  Incarnation* life_;
  int64_t* down_until_ms_;
};

}  // namespace idem::sim
