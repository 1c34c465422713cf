// Runs one configuration in this process: fresh store, seed data, the measured
// phase, then the exactly-once checks. Meant to run in a child process of its
// own (child_run.h), so its peak memory is its own.
#pragma once

#include <string>

#include "harness/run_spec.h"
#include "idem/pipeline.h"

namespace idem::bench {

RunResult RunOne(const RunSpec& spec);

// A correct bench run acknowledges every message. Anything else (the store or
// the fast filter down, a handler failing) would otherwise spin on redeliveries.
Status CheckBatch(const BatchReport& b);

// What the measured phase costs the process: resident memory at its start,
// then CPU time and bytes handed to write(2) until Stop.
class PhaseMeter {
 public:
  explicit PhaseMeter(RunResult* r);
  void Stop();

 private:
  RunResult* r_;
  double user_s_ = 0, system_s_ = 0;
  int64_t written_ = 0;
};

// A file name made of the run's name (letters and digits kept, the rest '_').
std::string FileNameFor(const std::string& name);
// Removes an SQLite file and its WAL, shared-memory and journal files.
void RemoveSqliteFiles(const std::string& path);

}  // namespace idem::bench
