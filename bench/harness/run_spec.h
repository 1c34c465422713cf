// One bench configuration (RunSpec) and what running it found (RunResult).
//
// The three variants are configurations of the same Pipeline over the same
// source, store and handler, so they differ only in what the comparison is about:
//   idem     batch_size B, the guard on (records claimed and completed in the
//            batch's transaction; a savepoint per message)
//   naive    batch_size 1, the guard on: one poll, one transaction, one ack per
//            message — "done correctly, one at a time"; with Redis, one
//            SET NX per message in front
//   ceiling  batch_size B, the guard off (no records, no claims) and the oracle
//            skipping the known copies: the same unique effects in the same
//            batches, the most any guard could hope for
//   raw      end-to-end runs only: the broker's own loop over the same messages
//            (poll then acknowledge every message, no store, no guard), the
//            most any consumer of that broker could hope for
//   idem-run `idem run` as a process of its own, set against idem (the
//            library's pipeline) on the same queue and store
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "harness/pay_stream.h"

namespace idem::bench {

enum class Variant { kIdem, kNaive, kCeiling, kRaw, kService };
const char* VariantName(Variant v);

enum class Phase {
  kSaturated,  // a backlog all the time: throughput
  kPaced,      // a producer at a fixed rate below saturation: publish→commit latency
};
const char* PhaseName(Phase p);

// What a run is for in the report.
enum class Role {
  kCompare,        // the side-by-side comparison: idem, naive, ceiling on empty tables
  kSweep,          // throughput against batch size
  kRandomKeys,     // random instead of sequential business keys
  kHistory,        // with a history of payments and records already in the tables
  kNoCopies,       // no duplicates at all: what the records cost, apart from catching copies
  kLatencyCommon,  // paced at one rate every variant can sustain
  kLatencyHigh,    // paced at half of idem's saturated throughput
  kSoak,           // a long run whose resident memory is sampled
  kEndToEnd,       // idem consuming from a real broker against that broker's raw loop
  kFilter,         // idem with and without the fast filter, normal copies and a duplicate storm
  kService,        // `idem run` against the library's pipeline on the same embedded queue and store
};
const char* RoleName(Role r);
bool RoleFromName(const std::string& name, Role* out);

struct RunSpec {
  std::string name;       // unique within a bench, e.g. "sqlite idem B=100 sequential"
  Role role = Role::kCompare;
  std::string store = "sqlite";  // "sqlite" (a fresh file in work_dir) or a store URL
  std::string store_label = "sqlite";  // for tables: sqlite, postgres, …
  std::string redis_url;  // fast filter in front (idem and naive only); "" for none
  Variant variant = Variant::kIdem;
  size_t batch_size = 100;
  Phase phase = Phase::kSaturated;
  int64_t messages = 0;          // saturated: at most this many
  double max_seconds = 0;        // saturated: stop at the first batch boundary after this long (0: no cap)
  double rate_per_s = 0;         // paced: offered rate
  double paced_seconds = 0;      // paced: how long the producer publishes
  double duplicate_ratio = 0.3;
  KeyOrder keys = KeyOrder::kSequential;
  int64_t history = 0;           // payments (and records) already in the tables
  int rss_samples = 10;          // RSS readings spread over the run
  uint64_t seed = 1;
  std::string work_dir;          // SQLite files are created here
  // End-to-end runs: the broker the messages are published to before the clock
  // starts, and consumed from while it runs. "" for the in-memory source;
  // "queue" an embedded queue file of its own; "queue-in-store" the embedded
  // queue in the SQLite store's own file; otherwise a broker URL (amqp://…,
  // kafka://mock/…).
  std::string broker;
  std::string broker_label;      // for tables: embedded, embedded-in-store, rabbitmq, kafka-mock
  std::string idem_path;         // kService: the idem program to start as `idem run`
  bool log_decisions = true;     // kService: `idem run` writes its log line per message (the default)
  int repeat = 0;                // alternated runs (compare, filter, end-to-end): the pair's or round's number
};

struct LatencyStats {
  int64_t samples = 0;
  double p50_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0, mean_ms = 0;
};
LatencyStats SummariseLatencies(std::vector<int64_t> micros);

struct RunResult {
  RunSpec spec;
  bool ok = false;      // ran to the end and passed every check
  std::string error;    // why not

  int64_t messages = 0;  // settled during the measured phase
  int64_t unique = 0;    // distinct payments among them
  int64_t batches = 0;
  double seconds = 0;          // the measured phase
  double setup_seconds = 0;    // schema, seed data (not measured)
  double msgs_per_s = 0;       // messages / seconds (copies included: the consumer handles them too)
  double cpu_user_s = 0;       // CPU time of the measured phase, user space
  double cpu_system_s = 0;     // … and in the kernel (journal writes, fsync)
  int64_t bytes_written = 0;   // handed to write(2) during the measured phase (the store's journal)
  LatencyStats latency;        // paced phase only
  // Paced phase: how long the consumer needed after the last publish to settle
  // everything. Well below the rate it has nothing left; a long drain means it
  // could not keep up, and its latencies measure a growing queue instead.
  double drain_seconds = 0;
  bool overloaded = false;

  int64_t rss_start_kb = 0;    // resident memory when the measured phase began
  int64_t peak_rss_kb = 0;     // the child process's peak (getrusage)
  std::vector<std::pair<int64_t, int64_t>> rss_kb_at;  // (messages settled, resident KiB)

  // Checks read from the database after the run (see verify_run.h).
  std::vector<std::string> checks_passed;
  std::vector<std::string> check_failures;
  int64_t business_runs = 0;   // times the payments handler really ran
  int64_t filtered = 0;        // copies the fast filter stopped
};

}  // namespace idem::bench
