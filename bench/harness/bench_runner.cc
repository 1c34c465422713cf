#include "harness/bench_runner.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "harness/bench_goals.h"
#include "harness/child_run.h"
#include "harness/fast_filter_factory.h"
#include "harness/run_json.h"
#include "harness/run_one.h"
#include "harness/run_service_end_to_end.h"
#include "idem/env.h"
#include "idem/store.h"

namespace idem::bench {
namespace {

// `work` in a child process of its own: what it returned, or why the child failed.
template <typename Result, typename Spec>
Result InChild(const Spec& spec, const std::function<nlohmann::json()>& work,
               Result (*from_json)(const nlohmann::json&)) {
  Result r;
  auto j = RunInChild(work);
  if (j.ok()) r = from_json(*j);
  else r.error = j.status().message();
  r.spec = spec;  // the parent's copy is complete (URLs, work dir)
  return r;
}

RunResult RunIsolated(const RunSpec& spec) {
  if (spec.role == Role::kService)
    return InChild(spec, [&] { return ToJson(RunServiceEndToEnd(spec)); }, &RunResultFromJson);
  return InChild(spec, [&] { return ToJson(RunOne(spec)); }, &RunResultFromJson);
}

std::string Describe(const RunResult& r) {
  char buf[160];
  if (r.spec.phase == Phase::kPaced)
    std::snprintf(buf, sizeof buf, "p50 %.1f ms, p99 %.1f ms over %lld messages%s", r.latency.p50_ms,
                  r.latency.p99_ms, static_cast<long long>(r.latency.samples),
                  r.overloaded ? " (OVERLOADED: could not keep up with the offered rate)" : "");
  else
    std::snprintf(buf, sizeof buf,
                  "%.0f msg/s (%lld messages in %.1f s; CPU %.1f s user, %.1f s kernel)", r.msgs_per_s,
                  static_cast<long long>(r.messages), r.seconds, r.cpu_user_s, r.cpu_system_s);
  std::string line = buf;
  line += r.ok ? ", exactly once" : ", FAILED: " + r.error;
  return line;
}

double Ratio(double a, double b) { return a > 0 && b > 0 ? a / b : 0; }

double Throughput(const RunResult* r) { return r && r->ok ? r->msgs_per_s : 0; }

double MinPositive(double a, double b) {
  if (a <= 0) return b;
  if (b <= 0) return a;
  return std::min(a, b);
}

// The median of `v` with its lowest and highest value; all 0 when empty.
struct Spread {
  double median = 0, min = 0, max = 0;
};

Spread SpreadOf(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return {n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v.front(), v.back()};
}

// Alternated pairs of runs (a, b): the medians of each side, their ranges, and
// the median of the pairs' ratios a / b with the lowest and highest pair.
struct PairStats {
  int pairs = 0;
  Spread a, b, ratio;
};

// `complete_only`: each side from the pairs where both passed (the end-to-end
// and filter figures); otherwise each side from all of its runs that passed,
// so that a run selected alone (--only) still has its figure.
PairStats SummarisePairs(const RunPairs& runs, bool complete_only = true) {
  std::vector<double> a, b, ratios;
  for (const auto& [x, y] : runs) {
    const double ax = Throughput(x), by = Throughput(y);
    const bool both = ax > 0 && by > 0;
    if (ax > 0 && (both || !complete_only)) a.push_back(ax);
    if (by > 0 && (both || !complete_only)) b.push_back(by);
    if (both) ratios.push_back(ax / by);
  }
  return PairStats{static_cast<int>(ratios.size()), SpreadOf(a), SpreadOf(b), SpreadOf(ratios)};
}

// Pairs 1 … n of the runs `in` selects, each split into (a, b) by `is_a`.
RunPairs PairsOf(const BenchOutcome& b, int n, const std::function<bool(const RunSpec&)>& in,
                 const std::function<bool(const RunSpec&)>& is_a) {
  RunPairs pairs(static_cast<size_t>(std::max(n, 0)), {nullptr, nullptr});
  for (const RunResult& run : b.runs)
    if (in(run.spec) && run.spec.repeat >= 1 && run.spec.repeat <= n)
      (is_a(run.spec) ? pairs[run.spec.repeat - 1].first : pairs[run.spec.repeat - 1].second) = &run;
  return pairs;
}

EndToEndSummary SummariseEndToEnd(const BenchOutcome& b, const BrokerTarget& broker) {
  // Each round runs raw, ceiling and idem; idem is set against each of the other two.
  auto against = [&](Variant other) {
    return SummarisePairs(PairsOf(
        b, b.options.e2e_pairs,
        [&](const RunSpec& s) {
          return s.role == Role::kEndToEnd && s.broker_label == broker.label &&
                 (s.variant == Variant::kIdem || s.variant == other);
        },
        [](const RunSpec& s) { return s.variant == Variant::kIdem; }));
  };
  const PairStats raw = against(Variant::kRaw), ceiling = against(Variant::kCeiling);
  return EndToEndSummary{.broker = broker, .messages = EndToEndMessages(b.options, broker),
                         .pairs = std::min(raw.pairs, ceiling.pairs), .idem_per_s = raw.a.median,
                         .ceiling_per_s = ceiling.b.median, .raw_per_s = raw.b.median, .idem_min = raw.a.min,
                         .idem_max = raw.a.max, .ceiling_min = ceiling.b.min, .ceiling_max = ceiling.b.max,
                         .raw_min = raw.b.min, .raw_max = raw.b.max, .ratio = raw.ratio.median,
                         .ratio_min = raw.ratio.min, .ratio_max = raw.ratio.max,
                         .over_ceiling = ceiling.ratio.median, .over_ceiling_min = ceiling.ratio.min,
                         .over_ceiling_max = ceiling.ratio.max};
}

ServiceSummary SummariseService(const BenchOutcome& b, const BrokerTarget& broker) {
  // Each round runs the library, then idem run (and idem run without its decision log); each is set against the library.
  auto against_library = [&](bool log_decisions) {
    return SummarisePairs(PairsOf(
        b, b.options.e2e_pairs,
        [&](const RunSpec& s) {
          return s.role == Role::kService && s.broker_label == broker.label &&
                 (s.variant == Variant::kIdem || s.log_decisions == log_decisions);
        },
        [](const RunSpec& s) { return s.variant == Variant::kService; }));
  };
  const PairStats p = against_library(true), q = against_library(false);
  return ServiceSummary{.broker = broker, .messages = b.options.e2e_messages, .pairs = p.pairs,
                        .library_per_s = p.b.median, .library_min = p.b.min, .library_max = p.b.max,
                        .service_per_s = p.a.median, .service_min = p.a.min, .service_max = p.a.max,
                        .ratio = p.ratio.median, .ratio_min = p.ratio.min, .ratio_max = p.ratio.max,
                        .quiet_pairs = q.pairs, .quiet_per_s = q.a.median, .quiet_min = q.a.min,
                        .quiet_max = q.a.max, .quiet_ratio = q.ratio.median, .quiet_ratio_min = q.ratio.min,
                        .quiet_ratio_max = q.ratio.max};
}

FilterSummary SummariseFilter(const BenchOutcome& b, const std::string& store, double copies) {
  const RunPairs pairs = PairsOf(
      b, b.options.filter_pairs,
      [&](const RunSpec& s) {
        return s.role == Role::kFilter && s.store_label == store && s.duplicate_ratio == copies;
      },
      [](const RunSpec& s) { return !s.redis_url.empty(); });
  int64_t filtered = 0, messages = 0;
  for (const auto& [with, without] : pairs)
    if (with && with->ok) {
      filtered += with->filtered;
      messages += with->messages;
    }
  const PairStats p = SummarisePairs(pairs);
  const double share = messages > 0 ? static_cast<double>(filtered) / static_cast<double>(messages) : 0;
  return FilterSummary{.store = store, .duplicate_ratio = copies, .pairs = p.pairs, .without_per_s = p.b.median,
                       .with_per_s = p.a.median, .ratio = p.ratio.median, .ratio_min = p.ratio.min,
                       .ratio_max = p.ratio.max, .filtered_share = share};
}

// The several-workers runs of one store, each in a child of its own (they
// start threads; the bench forks). About ten seconds at one worker: the
// message count is what idem B alone settled in that time.
WorkersResult RunWorkersIsolated(const BenchOptions& o, const StoreTarget& store, int workers, double idem_per_s) {
  WorkersSpec spec;
  spec.store_label = store.label;
  spec.store_url = store.url;
  spec.workers = workers;
  // Without the store's own runs (--part workers) there is no rate to go by: the throughput runs' count.
  spec.messages = idem_per_s > 0 ? std::clamp<int64_t>(static_cast<int64_t>(idem_per_s * std::min(o.max_seconds, 10.0)),
                                                       1'000, o.messages)
                                 : o.messages;
  spec.batch_size = o.batch_size;
  spec.duplicate_ratio = o.duplicate_ratio;
  spec.seed = o.seed;
  return InChild(spec, [&] { return ToJson(RunWorkers(spec)); }, &WorkersResultFromJson);
}

}  // namespace

Result<std::vector<StoreTarget>> CheckTargets(const BenchOptions& options) {
  std::vector<StoreTarget> targets = StoreTargets(options);
  for (StoreTarget& t : targets) {
    if (t.url == "sqlite") {
      t.durability = "a fresh file per run, WAL, synchronous=FULL (every commit fsynced)";
      continue;
    }
    auto j = RunInChild([&]() -> nlohmann::json {
      auto store = OpenStore(t.url, Env::Default());
      if (!store.ok()) return {{"error", "cannot open --store (" + t.label + "): " + store.status().ToString()}};
      const SqlDialect& dialect = (*store)->Dialect();
      std::string durability = std::string(dialect.Name());
      // MySQL: innodb_flush_log_at_trx_commit 1 flushes the redo log at every commit; 0 and 2 leave it to a timer.
      if (!dialect.DurabilitySettingsQuery().empty()) {
        auto tx = (*store)->Begin();
        if (tx.ok()) {
          auto rows = (*tx)->Query(dialect.DurabilitySettingsQuery(), {});
          if (rows.ok())
            for (const Row& r : *rows) durability += ", " + AsText(r[0]) + "=" + AsText(r[1]);
          (*tx)->Rollback();
        }
      }
      return {{"error", ""}, {"durability", durability}};
    });
    if (!j.ok()) return j.status();
    if (std::string e = j->value("error", std::string()); !e.empty()) return Status::InvalidArgument(e);
    t.durability = j->value("durability", std::string());
  }
  if (!options.redis_url.empty()) {
    auto j = RunInChild([&]() -> nlohmann::json {
      auto filter = OpenBenchFastFilter(options.redis_url);
      if (!filter.ok()) return {{"error", filter.status().message()}};
      FilterRequest probe{"idem-bench-probe", "0"};
      auto marked = (*filter)->Mark({&probe, 1}, 1'000);
      if (!marked.ok()) return {{"error", "--redis-url does not answer: " + marked.status().ToString()}};
      std::string key = probe.key;
      (void)(*filter)->Finish({}, 1'000, {&key, 1});
      return {{"error", ""}};
    });
    if (!j.ok()) return j.status();
    if (std::string e = j->value("error", std::string()); !e.empty()) return Status::InvalidArgument(e);
    if (std::none_of(targets.begin(), targets.end(), IsServerStore))
      return Status::InvalidArgument(
          "--redis-url is measured on a server store only: add a --store postgresql://… or mysql://… (a "
          "scratch database)");
  }
  return targets;
}

const RunResult* FindRun(const BenchOutcome& b, const std::string& store, Role role, Variant variant, size_t batch) {
  for (const RunResult& r : b.runs)
    if (r.spec.store_label == store && r.spec.role == role && r.spec.variant == variant &&
        (batch == 0 || r.spec.batch_size == batch))
      return &r;
  return nullptr;
}

RunPairs ComparePairs(const BenchOutcome& b, const std::string& store) {
  return PairsOf(
      b, b.options.compare_pairs,
      [&](const RunSpec& s) {
        return s.role == Role::kCompare && s.store_label == store && s.variant != Variant::kNaive;
      },
      [](const RunSpec& s) { return s.variant == Variant::kIdem; });
}

const RunResult* SoakRun(const BenchOutcome& b) {
  for (const RunResult& r : b.runs)
    if (r.spec.role == Role::kSoak) return &r;
  return nullptr;
}

std::optional<double> SoakGrowthMiBPerMillion(const RunResult& soak) {
  if (soak.rss_kb_at.size() < 2) return std::nullopt;
  const auto& [first_at, first_kb] = soak.rss_kb_at.front();
  const auto& [last_at, last_kb] = soak.rss_kb_at.back();
  if (last_at <= first_at) return std::nullopt;
  return static_cast<double>(last_kb - first_kb) / 1024.0 / (static_cast<double>(last_at - first_at) / 1e6);
}

double SweepPoint(const BenchOutcome& b, const std::string& store, Variant variant, size_t batch) {
  if (const RunResult* r = FindRun(b, store, Role::kSweep, variant, batch)) return Throughput(r);
  const RunResult* compare = FindRun(b, store, Role::kCompare, variant, batch);
  if (!compare || variant == Variant::kNaive) return Throughput(compare);  // naive runs once
  const PairStats p = SummarisePairs(ComparePairs(b, store), /*complete_only=*/false);
  return variant == Variant::kIdem ? p.a.median : p.b.median;
}

StoreSummary SummariseStore(const BenchOutcome& b, const StoreTarget& t) {
  const PairStats p = SummarisePairs(ComparePairs(b, t.label), /*complete_only=*/false);
  StoreSummary s;
  s.target = t;
  s.idem_per_s = p.a.median;
  s.idem_min = p.a.min;
  s.idem_max = p.a.max;
  s.ceiling_per_s = p.b.median;
  s.ceiling_min = p.b.min;
  s.ceiling_max = p.b.max;
  s.compare_pairs = p.pairs;
  s.naive_per_s = Throughput(FindRun(b, t.label, Role::kCompare, Variant::kNaive));
  s.idem_over_naive = Ratio(s.idem_per_s, s.naive_per_s);
  s.idem_over_ceiling = p.ratio.median;
  s.idem_over_ceiling_min = p.ratio.min;
  s.idem_over_ceiling_max = p.ratio.max;
  // These roles run once each: idem's run over the ceiling's.
  auto over_ceiling = [&](Role role) {
    return Ratio(Throughput(FindRun(b, t.label, role, Variant::kIdem)),
                 Throughput(FindRun(b, t.label, role, Variant::kCeiling)));
  };
  s.random_keys_idem_over_ceiling = over_ceiling(Role::kRandomKeys);
  s.history_idem_over_ceiling = over_ceiling(Role::kHistory);
  s.no_copies_idem_over_ceiling = over_ceiling(Role::kNoCopies);
  return s;
}

BenchOutcome RunBench(const BenchOptions& options, const std::vector<StoreTarget>& targets,
                      const Progress& progress) {
  Env* env = Env::Default();
  const int64_t start = env->MonotonicMicros();
  BenchOutcome out;
  out.options = options;
  out.machine = ReadMachineInfo(options.work_dir);
  out.stores = targets;

  auto selected = [&](const RunSpec& spec) {
    return options.only.empty() || spec.name.find(options.only) != std::string::npos;
  };
  auto count_selected = [&](const std::vector<RunSpec>& specs) {
    return static_cast<size_t>(std::count_if(specs.begin(), specs.end(), selected));
  };
  const bool stores_on = PartSelected(options, "stores");
  // --only selects runs by name, which the workers' runs have not: they run with it only when --part asks.
  const bool workers_on = options.parts.empty() ? options.only.empty() : PartSelected(options, "workers");
  const bool soak_on = PartSelected(options, "soak") && options.soak_messages > 0;
  constexpr size_t kLatencyRuns = 5;  // planned once the throughput is known; counted ahead
  std::vector<std::vector<RunSpec>> planned, filter;
  size_t total = 0;
  for (const StoreTarget& t : out.stores) {
    planned.push_back(stores_on ? PlanThroughputRuns(options, t) : std::vector<RunSpec>{});
    filter.push_back(PartSelected(options, "fast-filter") ? PlanFilterRuns(options, t) : std::vector<RunSpec>{});
    total += count_selected(planned.back()) + count_selected(filter.back());
    // The paced runs measure batching against one transaction a message; on a
    // server store they would repeat SQLite's answer at a network round trip's cost.
    if (!IsServerStore(t)) total += stores_on ? kLatencyRuns : 0;
    else if (workers_on) total += std::size(kWorkerCounts);
  }
  if (soak_on && selected(PlanSoakRun(options, out.stores.front()))) total += 1;
  const std::vector<BrokerTarget> brokers =
      PartSelected(options, "end-to-end") ? BrokerTargets(options) : std::vector<BrokerTarget>{};
  std::vector<std::vector<RunSpec>> end_to_end;
  for (const BrokerTarget& t : brokers) {
    end_to_end.push_back(PlanEndToEndRuns(options, t));
    total += count_selected(end_to_end.back());
  }
  const std::vector<BrokerTarget> service_queues =
      PartSelected(options, "idem-run") ? ServiceBrokerTargets(options) : std::vector<BrokerTarget>{};
  std::vector<std::vector<RunSpec>> service;
  for (const BrokerTarget& t : service_queues) {
    service.push_back(PlanServiceRuns(options, t));
    total += count_selected(service.back());
  }
  size_t done = 0;
  auto head = [&] {
    char buf[48];
    std::snprintf(buf, sizeof buf, "[%2zu/%zu] ", ++done, total);
    return std::string(buf);
  };
  auto run = [&](const RunSpec& spec) {
    if (!selected(spec)) return;
    const std::string h = head();
    progress(h + spec.name + " ...");
    out.runs.push_back(RunIsolated(spec));
    progress(h + spec.name + ": " + Describe(out.runs.back()));
  };

  for (size_t i = 0; i < out.stores.size(); ++i) {
    const StoreTarget& t = out.stores[i];
    for (const RunSpec& spec : planned[i]) run(spec);
    StoreSummary s = SummariseStore(out, t);
    if (!IsServerStore(t) && stores_on) {
      // Latency is compared at a rate all three sustain, then idem and ceiling at
      // half of idem's throughput. naive and idem at B=1 are the same
      // configuration: the slower of the two is the safer estimate of what one
      // message per transaction sustains, and 40 % of it leaves room for the
      // producer thread and for a noisy machine.
      const double one_at_a_time = MinPositive(s.naive_per_s, SweepPoint(out, t.label, Variant::kIdem, 1));
      s.common_rate = 0.4 * one_at_a_time;
      s.high_rate = 0.5 * s.idem_per_s;
      const std::vector<RunSpec> latency = PlanLatencyRuns(options, t, s.common_rate, s.high_rate);
      total -= kLatencyRuns - count_selected(latency);
      for (const RunSpec& spec : latency) run(spec);
    } else if (IsServerStore(t) && workers_on) {
      for (int workers : kWorkerCounts) {
        const std::string h = head(), what = t.label + " " + std::to_string(workers) + " worker(s)";
        progress(h + what + " ...");
        out.workers.push_back(RunWorkersIsolated(options, t, workers, s.idem_per_s));
        const WorkersResult& w = out.workers.back();
        char line[160];
        std::snprintf(line, sizeof line, "%.0f msg/s (%lld messages in %.1f s), %lld transaction reruns", w.msgs_per_s,
                      static_cast<long long>(w.messages), w.seconds, static_cast<long long>(w.transaction_retries));
        progress(h + what + ": " + line + (w.ok ? ", exactly once" : ", FAILED: " + w.error));
      }
    }
    for (const RunSpec& spec : filter[i]) run(spec);
    if (!filter[i].empty())
      for (double copies : {options.duplicate_ratio, kStormDuplicates})
        out.filter.push_back(SummariseFilter(out, t.label, copies));
    out.summaries.push_back(s);
  }
  if (soak_on) run(PlanSoakRun(options, out.stores.front()));
  for (size_t i = 0; i < brokers.size(); ++i) {
    for (const RunSpec& spec : end_to_end[i]) run(spec);
    if (count_selected(end_to_end[i]) > 0) out.end_to_end.push_back(SummariseEndToEnd(out, brokers[i]));
  }
  for (size_t i = 0; i < service_queues.size(); ++i) {
    for (const RunSpec& spec : service[i]) run(spec);
    if (count_selected(service[i]) > 0) out.service.push_back(SummariseService(out, service_queues[i]));
  }

  if (options.micro_min_time_s > 0 && PartSelected(options, "micro")) {
    progress("micro-benchmarks (Google Benchmark) ...");
    auto j = RunInChild([&] { return ToJson(RunMicroBenchmarks(options.micro_min_time_s)); });
    if (j.ok()) out.micro = MicroResultsFromJson(*j);
    else out.micro_error = j.status().message();
    progress(out.micro_error.empty() ? "micro-benchmarks: " + std::to_string(out.micro.size()) + " figures"
                                     : "micro-benchmarks FAILED: " + out.micro_error);
  }

  out.all_exactly_once = !out.runs.empty();
  for (const RunResult& r : out.runs) out.all_exactly_once = out.all_exactly_once && r.ok;
  for (const WorkersResult& w : out.workers) out.all_exactly_once = out.all_exactly_once && w.ok;
  out.machine.load_after = ReadLoadAverage();
  out.machine.fsync_ms_after = MeasureFsyncMs(options.work_dir);
  out.total_seconds = static_cast<double>(env->MonotonicMicros() - start) / 1e6;
  return out;
}

double ScalingVsOneWorker(const BenchOutcome& b, const WorkersResult& w) {
  for (const WorkersResult& one : b.workers)
    if (one.spec.store_label == w.spec.store_label && one.spec.workers == 1 && one.ok && w.ok)
      return Ratio(w.msgs_per_s, one.msgs_per_s);
  return 0;
}

nlohmann::json ToJson(const BenchOutcome& b) {
  using nlohmann::json;
  json stores = json::object();
  json ratios = json::object();
  for (const StoreSummary& s : b.summaries) {
    json sweep = json::object();
    for (Variant v : {Variant::kIdem, Variant::kCeiling}) {
      json points = json::object();
      for (size_t batch : b.options.sweep) points[std::to_string(batch)] = SweepPoint(b, s.target.label, v, batch);
      sweep[VariantName(v)] = points;
    }
    ratios[s.target.label] = {{"idem/naive", s.idem_over_naive}, {"idem/ceiling", s.idem_over_ceiling}};
    json pairs = json::array();
    for (const auto& [idem, ceiling] : ComparePairs(b, s.target.label))
      pairs.push_back({{"idem", Throughput(idem)},
                       {"ceiling", Throughput(ceiling)},
                       {"idem/ceiling", Ratio(Throughput(idem), Throughput(ceiling))}});
    stores[s.target.label] = {
        {"durability", s.target.durability},
        {"msgs_per_s", {{"idem", s.idem_per_s}, {"naive", s.naive_per_s}, {"ceiling", s.ceiling_per_s}}},
        {"msgs_per_s_range", {{"idem", {s.idem_min, s.idem_max}}, {"ceiling", {s.ceiling_min, s.ceiling_max}}}},
        {"compare_pairs", s.compare_pairs},
        {"compare_pairs_msgs_per_s", pairs},
        {"idem/naive", s.idem_over_naive},
        {"idem/ceiling", s.idem_over_ceiling},
        {"idem/ceiling_range", {s.idem_over_ceiling_min, s.idem_over_ceiling_max}},
        {"random_keys_idem/ceiling", s.random_keys_idem_over_ceiling},
        {"history_idem/ceiling", s.history_idem_over_ceiling},
        {"no_copies_idem/ceiling", s.no_copies_idem_over_ceiling},
        {"latency_common_rate_per_s", s.common_rate},
        {"latency_high_rate_per_s", s.high_rate},
        {"batch_sweep_msgs_per_s", sweep}};
  }
  json e2e = json::object();
  for (const EndToEndSummary& e : b.end_to_end)
    e2e[e.broker.label] = {{"pairs", e.pairs},
                           {"messages_per_run", e.messages},
                           {"idem_msgs_per_s", e.idem_per_s},
                           {"ceiling_msgs_per_s", e.ceiling_per_s},
                           {"raw_msgs_per_s", e.raw_per_s},
                           {"idem_msgs_per_s_range", {e.idem_min, e.idem_max}},
                           {"ceiling_msgs_per_s_range", {e.ceiling_min, e.ceiling_max}},
                           {"raw_msgs_per_s_range", {e.raw_min, e.raw_max}},
                           {"idem/raw", e.ratio},
                           {"idem/raw_range", {e.ratio_min, e.ratio_max}},
                           {"idem/ceiling", e.over_ceiling},
                           {"idem/ceiling_range", {e.over_ceiling_min, e.over_ceiling_max}}};
  json service = json::object();
  for (const ServiceSummary& s : b.service)
    service[s.broker.label] = {{"pairs", s.pairs},
                               {"messages_per_run", s.messages},
                               {"library_msgs_per_s", s.library_per_s},
                               {"library_msgs_per_s_range", {s.library_min, s.library_max}},
                               {"idem_run_msgs_per_s", s.service_per_s},
                               {"idem_run_msgs_per_s_range", {s.service_min, s.service_max}},
                               {"idem_run/library", s.ratio},
                               {"idem_run/library_range", {s.ratio_min, s.ratio_max}},
                               {"no_decision_log_pairs", s.quiet_pairs},
                               {"idem_run_no_decision_log_msgs_per_s", s.quiet_per_s},
                               {"idem_run_no_decision_log/library", s.quiet_ratio},
                               {"idem_run_no_decision_log/library_range", {s.quiet_ratio_min, s.quiet_ratio_max}}};
  json filter = json::array();
  for (const FilterSummary& f : b.filter)
    filter.push_back({{"store", f.store},
                      {"duplicate_ratio", f.duplicate_ratio},
                      {"pairs", f.pairs},
                      {"without_msgs_per_s", f.without_per_s},
                      {"with_msgs_per_s", f.with_per_s},
                      {"with/without", f.ratio},
                      {"with/without_range", {f.ratio_min, f.ratio_max}},
                      {"filtered_share", f.filtered_share}});
  json workers = json::array();
  for (const WorkersResult& w : b.workers) {
    workers.push_back(ToJson(w));
    workers.back()["scaling_vs_1_worker"] = ScalingVsOneWorker(b, w);
  }
  json goals = json::array();
  for (const GoalRow& g : EvaluateGoals(b))
    goals.push_back({{"path", g.goal.path},
                     {"goal", BoundText(g.goal)},
                     {"figure", g.has_figure ? json(g.figure) : json()},
                     {"shown", g.shown},
                     {"state", GoalStateName(g.state)},
                     {"met", g.met()}});
  json runs = json::array();
  for (const RunResult& r : b.runs) runs.push_back(ToJson(r));
  json out = {{"mode", b.options.quick ? "quick" : "full"},
              {"all_exactly_once", b.all_exactly_once},
              {"ratios", ratios},
              {"stores", stores},
              {"end_to_end", e2e},
              {"idem_run_vs_library", service},
              {"goals", goals},
              {"workers", workers},
              {"fast_filter", filter},
              {"runs", runs},
              {"micro_benchmarks", ToJson(b.micro)},
              {"micro_error", b.micro_error},
              {"machine", ToJson(b.machine)},
              {"workload",
               {{"topic", "pay.success"},
                {"duplicate_ratio", b.options.duplicate_ratio},
                {"batch_size", b.options.batch_size},
                {"messages_per_run", b.options.messages},
                {"max_seconds_per_run", b.options.max_seconds},
                {"history", b.options.history},
                {"server_history", b.options.server_history},
                {"compare_pairs", b.options.compare_pairs},
                {"fast_filter_pairs", b.options.filter_pairs},
                {"paced_seconds", b.options.paced_seconds},
                {"soak_messages", b.options.soak_messages},
                {"end_to_end_messages_per_run", b.options.e2e_messages},
                {"end_to_end_kafka_messages_per_run", b.options.e2e_kafka_messages},
                {"end_to_end_pairs", b.options.e2e_pairs},
                {"seed", b.options.seed}}},
              {"total_seconds", b.total_seconds},
              {"report", b.report_path},
              {"plot", b.plot_path},
              {"plot_note", b.plot_note}};
  // The headline ratios of the embedded default, at the top for scripts.
  if (!b.summaries.empty()) {
    out["idem/naive"] = b.summaries.front().idem_over_naive;
    out["idem/ceiling"] = b.summaries.front().idem_over_ceiling;
  }
  return out;
}

}  // namespace idem::bench
