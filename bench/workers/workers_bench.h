// Several workers on one store: `workers` threads, each a Pipeline with its
// own store connection and its own source, consuming one payments stream
// (with its copies) that a dealer thread hands out round robin — so copies of
// one payment meet in different workers, and their batches contend for the
// same records, orders and accounts. Reports the messages settled per second
// over all workers, the batch transactions run again after a deadlock or a
// serialization failure, and whether every payment was applied exactly once
// (from the ledger). `idem bench --workers` prints it.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace idem::bench {

struct WorkersSpec {
  std::string store_label;  // for tables: postgres, mysql, …
  std::string store_url;  // a scratch PostgreSQL or MySQL/MariaDB database: the payments tables are re-created
  int workers = 1;
  int64_t messages = 100'000;
  size_t batch_size = 100;
  double duplicate_ratio = 0.3;
  uint64_t seed = 1;
};

struct WorkersResult {
  WorkersSpec spec;
  bool ok = false;
  std::string error;        // why not ok
  int64_t messages = 0;     // settled, over all workers
  int64_t unique = 0;       // distinct payments among them
  double seconds = 0;
  double msgs_per_s = 0;
  int64_t transaction_retries = 0;  // batch transactions run again after a deadlock or serialization failure
  int64_t ledger_rows = 0;          // PAY_DEDUCT rows: must equal `unique`
  int64_t charged_twice = 0;        // payments with more than one ledger row: must be 0
};

WorkersResult RunWorkers(const WorkersSpec& spec);

// The result as JSON (without the URL, which may hold a password) and back:
// how a child process hands it over, and `idem bench --json`.
nlohmann::json ToJson(const WorkersResult& r);
WorkersResult WorkersResultFromJson(const nlohmann::json& j);

}  // namespace idem::bench
