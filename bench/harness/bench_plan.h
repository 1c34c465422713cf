// What `idem bench` runs: the options and the list of configurations.
//
// For every store (SQLite always; others from --store):
//   compare     idem (batch B) and ceiling (batch B) alternated in compare_pairs
//               pairs, then naive once           saturated, sequential keys, empty tables
//   sweep       idem and ceiling at each batch size of the sweep (1 … 1,000)
//   random-keys idem and ceiling with random business keys
//   history     idem and ceiling with `history` payments already applied
//   no-copies   idem and ceiling without duplicates: the records' own cost
//   latency     (SQLite only) paced at one common rate for all three, then idem
//               and ceiling at half of idem's throughput
// None of these has the Redis filter in front: the product's default is no
// filter. On each server store (PostgreSQL, MySQL/MariaDB) also:
//   workers     1, 2 and 4 workers on one stream (bench/workers)
//   filter      with --redis-url: idem with and without the Redis filter, at the
//               normal share of copies and in a duplicate storm, alternated
// and once, on the first store, a soak run of idem whose memory is sampled.
// End to end, for each broker (the embedded queue in a file of its own and in
// the SQLite store's file; RabbitMQ and Kafka when given): idem consuming from
// it into SQLite against the same with the guard off (the ceiling) and against
// the broker's raw poll+ack loop, alternated raw, ceiling, idem, raw, … so that
// all three see the same machine; each ratio is the median of the rounds' ratios.
// `idem run` against the library's pipeline (run_service_end_to_end.h), on the
// embedded queue in the store's file and in a file of its own: library,
// idem-run, library, … alternated, e2e_pairs rounds of each.
// Each of these parts can be run alone (--part).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/run_spec.h"

namespace idem::bench {

struct BenchOptions {
  bool quick = false;
  std::vector<std::string> store_urls;  // besides SQLite; each must name a scratch database
  std::string redis_url;                // the Redis filter's own runs on those stores; "" for none
  std::string work_dir;                 // SQLite files of the runs
  uint64_t seed = 1;
  double duplicate_ratio = 0.3;
  size_t batch_size = 100;
  std::vector<size_t> sweep = {1, 10, 100, 1000};
  // Sizes; the mode (quick or full) sets them unless the flags did.
  int64_t messages = 0;         // per saturated run
  double max_seconds = 0;       // cap per saturated run
  int64_t history = -1;         // payments already in the tables for the history runs
  int64_t server_history = -1;  // … on a server store, where seeding goes over the network
  double paced_seconds = 0;     // length of each latency run
  int64_t soak_messages = -1;   // 0: no soak run
  double micro_min_time_s = 0;  // per micro-benchmark; < 0: skip them
  std::string only;             // run only the configurations whose name contains this (profiling)
  std::vector<std::string> parts;  // run only these parts (kParts); empty: every part
  std::string idem_path;        // the idem program the idem-run part starts; "" leaves that part out
  std::string rabbitmq_url;     // end-to-end rows on RabbitMQ (a queue per run); "" for none
  std::string kafka_url;        // end-to-end rows on Kafka, e.g. kafka://mock/pay.success; "" for none
  int64_t e2e_messages = 0;     // per end-to-end run
  int64_t e2e_kafka_messages = 0;  // per end-to-end run on Kafka (at most e2e_messages)
  int e2e_pairs = 0;            // raw/ceiling/idem rounds per broker; < 0: no end-to-end rows
  int filter_pairs = 0;         // without/with pairs per share of copies in the Redis filter's runs
  int compare_pairs = 0;        // idem/ceiling pairs of each store's compare runs
  void ApplyModeDefaults();
};

// The parts of a bench, in the order they run. "stores" is each store's
// throughput runs (compare, sweep, random keys, history, no copies) and, on
// SQLite, the latency runs whose rates come from them.
inline constexpr const char* kParts[] = {"stores", "workers", "fast-filter", "soak", "end-to-end", "idem-run", "micro"};
// Whether `part` (one of kParts) runs: every part when options.parts is empty.
bool PartSelected(const BenchOptions& options, const std::string& part);
// The parts as the help text and an error name them: "stores, workers, …".
std::string PartList();

struct StoreTarget {
  std::string label;      // "sqlite", "postgres", …
  std::string url;        // "sqlite" or the URL
  // How the store makes a commit durable, read from the store itself (a
  // PostgreSQL with fsync=off makes every commit free and flatters naive).
  std::string durability;
};

// SQLite, then one target per --store (labelled by scheme), none with the Redis filter.
std::vector<StoreTarget> StoreTargets(const BenchOptions& options);
// PostgreSQL or MySQL/MariaDB: a store several workers can share, where the
// Redis filter can save a round trip.
bool IsServerStore(const StoreTarget& store);

// The share of copies in the filter's duplicate storm.
constexpr double kStormDuplicates = 0.9;
// Worker counts of the several-workers table.
inline constexpr int kWorkerCounts[] = {1, 2, 4};

struct BrokerTarget {
  std::string label;   // embedded, embedded-in-store, rabbitmq, kafka-mock, kafka
  std::string broker;  // RunSpec::broker
};
// The embedded queue twice (a file of its own, the store's file), then RabbitMQ and Kafka if given.
std::vector<BrokerTarget> BrokerTargets(const BenchOptions& options);
// Messages per end-to-end run on this broker.
int64_t EndToEndMessages(const BenchOptions& options, const BrokerTarget& broker);
// raw, ceiling, idem, raw, ceiling, idem, … (e2e_pairs of each) on one broker,
// batch B, SQLite store.
std::vector<RunSpec> PlanEndToEndRuns(const BenchOptions& options, const BrokerTarget& broker);
// The queues `idem run` is measured on: the embedded queue in the store's file, then in a file of its own.
std::vector<BrokerTarget> ServiceBrokerTargets(const BenchOptions& options);
// library, idem-run, library, idem-run, … (e2e_pairs of each) on one of those
// queues, batch B, e2e_messages a run; on the queue in the store's file each
// round also runs `idem run` without its log line per message.
std::vector<RunSpec> PlanServiceRuns(const BenchOptions& options, const BrokerTarget& broker);

// compare, sweep, random-keys and history runs of one store. The compare runs
// alternate idem, ceiling, idem, ceiling, … (compare_pairs of each, `repeat`
// numbering the pair) so that a server's drift between runs (autovacuum,
// checkpoints) falls on both sides; naive runs once after them.
std::vector<RunSpec> PlanThroughputRuns(const BenchOptions& options, const StoreTarget& store);
// The Redis filter's runs on one store: idem B, without then with the filter,
// filter_pairs times at the normal share of copies and as many in a storm.
std::vector<RunSpec> PlanFilterRuns(const BenchOptions& options, const StoreTarget& store);
// Latency runs: every variant at `common_rate`, idem and ceiling at `high_rate` (msg/s).
std::vector<RunSpec> PlanLatencyRuns(const BenchOptions& options, const StoreTarget& store, double common_rate,
                                     double high_rate);
// The soak run (idem, batch B, soak_messages, memory sampled 20 times).
RunSpec PlanSoakRun(const BenchOptions& options, const StoreTarget& store);

}  // namespace idem::bench
