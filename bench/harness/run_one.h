// Runs one configuration in this process: fresh store, seed data, the measured
// phase, then the exactly-once checks. Meant to run in a child process of its
// own (child_run.h), so its peak memory is its own.
#pragma once

#include "harness/run_spec.h"

namespace idem::bench {

RunResult RunOne(const RunSpec& spec);

}  // namespace idem::bench
