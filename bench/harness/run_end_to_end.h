// One end-to-end run: the messages are published to a real broker before the
// clock starts (the embedded queue, RabbitMQ, Kafka), then consumed from it —
// by idem (the pipeline, the payments handler, the SQLite store, checked
// exactly once from the database like every run), by the ceiling (the same
// pipeline, handler, store and batches with the guard off and the oracle
// skipping the copies) or by the broker's raw loop (poll, acknowledge every
// message; no store, no guard): the most any consumer of that broker could do
// with the same messages. idem / ceiling is what the guard costs on that
// broker; idem / raw is what idem and the effects cost on top of the broker.
#pragma once

#include "harness/run_spec.h"

namespace idem::bench {

RunResult RunEndToEnd(const RunSpec& spec);

}  // namespace idem::bench
