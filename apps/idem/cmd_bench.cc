// idem bench: throughput, latency and memory of the payments workload for idem,
// the naive one-at-a-time consumer and the unguarded ceiling, side by side on
// the same machine and data; writes REPORT.md and a plot of throughput against
// batch size. Every run is checked exactly-once from the database before its
// numbers count, and the command fails if one is not.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_checks.h"
#include "cli_util.h"
#include "commands.h"
#include "harness/bench_goals.h"
#include "harness/bench_runner.h"
#include "harness/plot_gnuplot.h"
#include "harness/report_markdown.h"
#include "workers/workers_bench.h"

namespace idem::cli {
namespace {

namespace fs = std::filesystem;

struct BenchArgs {
  bench::BenchOptions options;
  std::vector<int> workers;  // --workers: only the several-workers measurement
  std::string out_dir = "bench/results";
  bool json = false;
  bool keep_work_dir = false;
};

std::string Compact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The command line that reproduces this report (only the flags that were changed).
std::string CommandLine(const BenchArgs& a, const bench::BenchOptions& defaults) {
  const bench::BenchOptions& o = a.options;
  std::string c = "idem bench";
  if (o.quick) c += " --quick";
  for (const std::string& url : o.store_urls) c += " --store " + url.substr(0, url.find("://") + 3) + "…";
  if (!o.redis_url.empty()) c += " --redis-url redis://…";
  if (!o.rabbitmq_url.empty()) c += " --rabbitmq-url amqp://…";
  if (!o.kafka_url.empty()) c += " --kafka-url " + (o.kafka_url.rfind("kafka://mock", 0) == 0 ? o.kafka_url : "kafka://…");
  if (o.e2e_messages != defaults.e2e_messages) c += " --e2e-messages " + std::to_string(o.e2e_messages);
  if (o.e2e_pairs != defaults.e2e_pairs) c += " --e2e-pairs " + std::to_string(o.e2e_pairs);
  if (o.compare_pairs != defaults.compare_pairs) c += " --compare-pairs " + std::to_string(o.compare_pairs);
  if (o.messages != defaults.messages) c += " --messages " + std::to_string(o.messages);
  if (o.max_seconds != defaults.max_seconds) c += " --seconds " + Compact(o.max_seconds);
  if (o.paced_seconds != defaults.paced_seconds) c += " --paced-seconds " + Compact(o.paced_seconds);
  if (!o.only.empty()) c += " --only '" + o.only + "'";
  for (const std::string& part : o.parts) c += " --part " + part;
  if (o.history != defaults.history) c += " --history " + std::to_string(o.history);
  if (o.soak_messages != defaults.soak_messages) c += " --soak-messages " + std::to_string(o.soak_messages);
  if (o.batch_size != 100) c += " --batch-size " + std::to_string(o.batch_size);
  if (o.seed != 1) c += " --seed " + std::to_string(o.seed);
  if (a.out_dir != "bench/results") c += " --out " + a.out_dir;
  return c;
}

// This program, which the idem-run part starts as `idem run`.
std::string ThisProgram() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : self.string();
}

std::string MakeWorkDir(const std::string& requested) {
  if (!requested.empty()) {
    std::error_code ec;
    fs::create_directories(requested, ec);
    if (ec) throw CliError("cannot create --work-dir " + requested + ": " + ec.message(), 2);
    return requested;
  }
  // /var/tmp, not /tmp: on many systems /tmp is tmpfs, where fsync is free and
  // every one-transaction-per-message figure would be flattered.
  std::string tmpl = "/var/tmp/idem-bench-XXXXXX";
  if (!mkdtemp(tmpl.data())) throw CliError("cannot create a work folder under /var/tmp: pass --work-dir DIR", 1);
  return tmpl;
}

void PrintSummary(const bench::BenchOutcome& b) {
  std::cout << "idem bench (" << (b.options.quick ? "quick" : "full") << ", " << static_cast<int>(b.total_seconds)
            << " s): " << (b.all_exactly_once ? "every run exactly once" : "SOME RUNS FAILED") << "\n";
  for (const bench::StoreSummary& s : b.summaries) {
    if (s.idem_per_s <= 0 && s.naive_per_s <= 0 && s.ceiling_per_s <= 0) continue;  // its runs were left out
    std::printf("  %-14s idem %9.0f msg/s   naive %8.0f msg/s   ceiling %9.0f msg/s   idem/naive %.2f   "
                "idem/ceiling %.2f\n",
                s.target.label.c_str(), s.idem_per_s, s.naive_per_s, s.ceiling_per_s, s.idem_over_naive,
                s.idem_over_ceiling);
  }
  for (const bench::WorkersResult& w : b.workers)
    std::printf("  %-14s %d worker%s %9.0f msg/s   %lld transaction reruns   %s\n", w.spec.store_label.c_str(),
                w.spec.workers, w.spec.workers == 1 ? " " : "s", w.msgs_per_s,
                static_cast<long long>(w.transaction_retries), w.ok ? "exactly once" : w.error.c_str());
  for (const bench::FilterSummary& f : b.filter)
    std::printf("  %-14s Redis filter at %2.0f %% copies: without %8.0f msg/s   with %8.0f msg/s   with/without %.2f\n",
                f.store.c_str(), f.duplicate_ratio * 100, f.without_per_s, f.with_per_s, f.ratio);
  for (const bench::ServiceSummary& s : b.service)
    std::printf("  %-18s idem run %8.0f msg/s   library %8.0f msg/s   idem run/library %.2f (%.2f–%.2f over %d rounds)\n",
                s.broker.label.c_str(), s.service_per_s, s.library_per_s, s.ratio, s.ratio_min, s.ratio_max, s.pairs);
  for (const bench::EndToEndSummary& e : b.end_to_end)
    std::printf("  %-18s end to end: idem %8.0f msg/s   ceiling %8.0f msg/s   raw %9.0f msg/s   idem/ceiling %.2f   "
                "idem/raw %.2f (%.2f–%.2f over %d rounds)\n",
                e.broker.label.c_str(), e.idem_per_s, e.ceiling_per_s, e.raw_per_s, e.over_ceiling, e.ratio,
                e.ratio_min, e.ratio_max, e.pairs);
  for (const bench::GoalRow& g : bench::EvaluateGoals(b))
    std::printf("  goal %-76s %-8s %s\n", g.goal.path,
                g.state == bench::GoalState::kMissed ? "MISSED" : bench::GoalStateName(g.state), g.shown.c_str());
  std::cout << "  report: " << b.report_path << "\n";
  std::cout << "  plot:   " << (b.plot_path.empty() ? b.plot_note : b.plot_path) << "\n";
}

// --workers: each count on each --store, with the run's --messages, --batch-size, --duplicates, --seed.
void RunWorkersOnly(const BenchArgs& a) {
  if (a.options.store_urls.empty())
    throw CliError("--workers needs a --store (a scratch PostgreSQL or MySQL/MariaDB database): SQLite has "
                   "one writer at a time",
                   2);
  nlohmann::json all = nlohmann::json::array();
  bool ok = true;
  for (const bench::StoreTarget& target : bench::StoreTargets(a.options)) {
    if (target.url == "sqlite") continue;
    for (int n : a.workers) {
      bench::WorkersSpec spec;
      spec.store_label = target.label;
      spec.store_url = target.url;
      spec.workers = n;
      spec.messages = a.options.messages > 0 ? a.options.messages : 100'000;
      spec.batch_size = a.options.batch_size;
      spec.duplicate_ratio = a.options.duplicate_ratio;
      spec.seed = a.options.seed;
      bench::WorkersResult r = bench::RunWorkers(spec);
      ok = ok && r.ok;
      all.push_back(bench::ToJson(r));
      if (!a.json)
        std::printf("  %-10s %d worker%s  %9.0f msg/s  %6lld transaction reruns  %s\n", target.label.c_str(), n,
                    n == 1 ? " " : "s", r.msgs_per_s, static_cast<long long>(r.transaction_retries),
                    r.ok ? "exactly once" : r.error.c_str());
    }
  }
  if (a.json) std::cout << all.dump(2) << "\n";
  if (!ok) throw CliError("some worker runs failed or were not exactly once: their numbers do not count", 1);
}

void Run(BenchArgs a) {
  if (!a.workers.empty()) return RunWorkersOnly(a);
  const bench::BenchOptions defaults = [&] {
    bench::BenchOptions d;
    d.quick = a.options.quick;
    d.ApplyModeDefaults();
    return d;
  }();
  a.options.ApplyModeDefaults();
  a.options.idem_path = ThisProgram();
  std::error_code ec;
  fs::create_directories(a.out_dir, ec);
  if (ec) throw CliError("cannot create --out " + a.out_dir + ": " + ec.message(), 2);
  auto targets = bench::CheckTargets(a.options);
  if (!targets.ok())
    throw CliError(targets.status().message() + "; to measure SQLite alone, leave out --store and --redis-url",
                   2);
  a.options.work_dir = MakeWorkDir(a.options.work_dir);

  bench::BenchOutcome b = bench::RunBench(a.options, *targets, [](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  });

  const std::string png = (fs::path(a.out_dir) / "throughput_vs_batch.png").string();
  if (Status s = bench::PlotThroughputVsBatch(b, png); s.ok()) b.plot_path = png;
  else b.plot_note = s.message();
  b.report_path = (fs::path(a.out_dir) / "REPORT.md").string();
  {
    std::ofstream out(b.report_path);
    out << bench::RenderReport(b, b.plot_path.empty() ? "" : "throughput_vs_batch.png", CommandLine(a, defaults));
    if (!out) throw CliError("cannot write " + b.report_path, 1);
  }
  if (!a.keep_work_dir) fs::remove_all(a.options.work_dir, ec);

  if (a.json) std::cout << bench::ToJson(b).dump(2) << "\n";
  else PrintSummary(b);
  if (!b.all_exactly_once)
    throw CliError("some runs failed or were not exactly once (see " + b.report_path + "): their numbers do not count",
                   1);
}

}  // namespace

void AddBenchCommand(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand(
      "bench",
      "Measure the payments workload (pay.success, 30 % duplicates) side by side:\n"
      "  idem     the batched pipeline (B messages per transaction)\n"
      "  naive    the same guard one message at a time (one transaction per message)\n"
      "  ceiling  the same effects in the same batches with no guard at all\n"
      "idem and the ceiling alternate in pairs (--compare-pairs); their figures are the medians.\n"
      "Throughput, publish-to-commit latency, peak memory, a batch-size sweep (1 … 1,000),\n"
      "random keys, a table with a history of payments, and the hot-path micro-benchmarks.\n"
      "End to end: idem consuming from the embedded queue (and RabbitMQ, Kafka when given) against\n"
      "the same with no guard and each broker's raw poll-and-ack loop on the same messages, alternated,\n"
      "medians of the rounds; and `idem run` (a process of its own) against the library's pipeline on\n"
      "the same embedded queue and store.\n"
      "On a PostgreSQL or MySQL/MariaDB --store also 1, 2 and 4 workers, and with --redis-url the\n"
      "Redis filter's own runs. A Goals table says which performance goal this run met or missed,\n"
      "and which it did not measure. --part runs one part alone (a full run takes about 17 minutes).\n"
      "Every run is checked exactly-once from the database. Writes OUT/REPORT.md and\n"
      "OUT/throughput_vs_batch.png (gnuplot). Progress goes to stderr.\n"
      "Examples:  idem bench --quick              (under a minute)\n"
      "           idem bench --part idem-run      (idem run against the library, one to two minutes)\n"
      "           idem bench --quick --json       (every figure, and idem/naive, idem/ceiling)\n"
      "           idem bench --store postgresql://bench@127.0.0.1:5432/bench --redis-url redis://127.0.0.1:6379");
  cmd->add_flag("--quick", a->options.quick, "A smaller workload that finishes in under a minute on 2 cores");
  cmd->add_flag("--json", a->json, "Print every figure as JSON on stdout");
  cmd->add_option("--out", a->out_dir, "Where REPORT.md and the plot go")->capture_default_str();
  AddStoreOption(cmd, &a->options.store_urls,
                  "Also measure this store (repeatable). It must name a SCRATCH database: the bench drops and "
                  "re-creates the payments tables (pay_*) there");
  cmd->add_option("--redis-url", a->options.redis_url,
                  "Also measure idem with and without the Redis fast filter on each PostgreSQL or MySQL/MariaDB "
                  "--store, at the usual share of copies and in a duplicate storm (keys are prefixed "
                  "idem-bench:). The other runs never use it")
      ->check(FastFilterUrl());
  cmd->add_option("--rabbitmq-url", a->options.rabbitmq_url,
                  "Also measure idem end to end on this RabbitMQ (amqp://…; a queue of its own per run) against a "
                  "raw consume-and-ack loop");
  cmd->add_option("--kafka-url", a->options.kafka_url,
                  "Also measure idem end to end on Kafka, e.g. kafka://mock/pay.success (in-process) or "
                  "kafka://HOST:PORT/TOPIC (a consumer group of its own per run), against a raw consume-and-commit "
                  "loop");
  cmd->add_option("--e2e-messages", a->options.e2e_messages,
                  "Messages per end-to-end run (default 60000; quick 3000)")
      ->transform(IntegerIn(1, 100'000'000));
  cmd->add_option("--e2e-pairs", a->options.e2e_pairs,
                  "Alternated raw/idem pairs per broker (default 3; quick 1; -1: no end-to-end rows)")
      ->transform(IntegerIn(-1, 100));
  cmd->add_option("--compare-pairs", a->options.compare_pairs,
                  "Alternated idem/ceiling pairs of each store's compare runs, whose medians are the headline "
                  "figures (default 3; quick 1)")
      ->transform(IntegerIn(1, 100));
  cmd->add_option("--work-dir", a->options.work_dir, "Folder for the SQLite files (default: a new folder in /var/tmp)");
  cmd->add_flag("--keep-work-dir", a->keep_work_dir, "Keep the work folder afterwards");
  cmd->add_option("--messages", a->options.messages, "Messages per throughput run (default 200000; quick 15000)")
      ->transform(IntegerIn(1, 100'000'000));
  cmd->add_option("--seconds", a->options.max_seconds, "Cap per throughput run, seconds (default 15; quick 2)")
      ->check(NumberIn(0, 86'400, /*lo_included=*/false));
  cmd->add_option("--history", a->options.history,
                  "Payments already in the tables for the history runs (default 1000000, at most 100000 on a server "
                  "store; quick 20000; 0: none)")
      ->transform(IntegerIn(0, 100'000'000));
  cmd->add_option("--soak-messages", a->options.soak_messages,
                  "Messages of the memory soak run (default 1000000; quick 0: none)")
      ->transform(IntegerIn(0, 100'000'000));
  cmd->add_option("--paced-seconds", a->options.paced_seconds, "Length of each latency run (default 5; quick 1.5)")
      ->check(NumberIn(0, 86'400, /*lo_included=*/false));
  cmd->add_option("--batch-size", a->options.batch_size, "idem's and the ceiling's batch size")
      ->capture_default_str()
      ->transform(IntegerIn(1, 10'000));
  cmd->add_option("--sweep", a->options.sweep, "Batch sizes of the sweep")
      ->capture_default_str()
      ->delimiter(',')
      ->transform(IntegerIn(1, 10'000));
  cmd->add_option("--duplicates", a->options.duplicate_ratio, "Share of messages that are copies")
      ->capture_default_str()
      ->check(NumberIn(0, 1, /*lo_included=*/true, /*hi_included=*/false));
  cmd->add_option("--seed", a->options.seed, "Seed of the message stream")
      ->capture_default_str()
      ->transform(UnsignedIn(0));
  cmd->add_option("--micro-min-time", a->options.micro_min_time_s,
                  "Seconds per micro-benchmark (default 0.2; quick 0.01; below 0: skip them)")
      ->check(NumberIn(-1, 60));
  cmd->add_option("--only", a->options.only,
                  "Run only the configurations whose name contains this text, e.g. 'idem B=100 sequential' "
                  "(to profile one run; the ratios then lack their other half)");
  cmd->add_option("--part", a->options.parts,
                  "Run only this part (repeatable): " + bench::PartList() +
                      ". stores: each store's throughput runs and, on SQLite, the latency runs; workers: 1, 2 and 4 "
                      "workers on each server --store; fast-filter: with --redis-url; soak: the memory soak; "
                      "end-to-end: idem, the ceiling and the raw loop on each broker; idem-run: `idem run` against "
                      "the library's pipeline on the embedded queue; micro: the micro-benchmarks")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(bench::kParts), std::end(bench::kParts))));
  cmd->add_option("--workers", a->workers,
                  "Only measure several workers on each --store: e.g. 1,2,4 threads, each with its own "
                  "connection, one payments stream dealt among them (msg/s, transaction reruns, exactly once)")
      ->delimiter(',')
      ->transform(IntegerIn(1, 64));
  cmd->callback([a] { Run(*a); });
}

}  // namespace idem::cli
