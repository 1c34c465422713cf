#include "harness/run_one.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>

#include "harness/bench_handler.h"
#include "harness/bench_seed.h"
#include "harness/bench_source.h"
#include "harness/fast_filter_factory.h"
#include "harness/process_memory.h"
#include "harness/run_end_to_end.h"
#include "harness/verify_run.h"
#include "idem/consumer.h"
#include "idem/pipeline.h"
#include "core/pipeline_test_hooks.h"

namespace idem::bench {
namespace {

// Everything one run holds; destroyed in reverse order.
struct Rig {
  std::string sqlite_path;  // empty for server stores
  std::unique_ptr<Store> store;
  std::unique_ptr<FastFilter> filter;
  CountingDownstream downstream;
  HandlerTally tally;
  std::string group;
};

Status OpenRig(const RunSpec& spec, Rig* rig) {
  Env* env = Env::Default();
  std::string url = spec.store;
  if (spec.store == "sqlite") {
    rig->sqlite_path = spec.work_dir + "/" + FileNameFor(spec.name) + ".db";
    RemoveSqliteFiles(rig->sqlite_path);
    url = "sqlite:" + rig->sqlite_path;  // the product default: WAL, synchronous=FULL
  }
  auto store = OpenStore(url, env);
  if (!store.ok()) return store.status();
  rig->store = std::move(*store);
  // A group of its own, so a shared store or Redis never sees an earlier run's keys.
  rig->group = "idem-bench-" + std::to_string(getpid()) + "-" + std::to_string(env->NowMs());
  if (!spec.redis_url.empty() && spec.variant != Variant::kCeiling) {
    auto filter = OpenBenchFastFilter(spec.redis_url);
    if (!filter.ok()) return filter.status();
    rig->filter = std::move(*filter);
  }
  return Status::OK();
}

PipelineOptions OptionsFor(const RunSpec& spec, const std::string& group) {
  PipelineOptions o;
  o.consumer_group = group;
  o.batch_size = spec.variant == Variant::kNaive ? 1 : spec.batch_size;
  return o;
}

int64_t MessagesOffered(const RunSpec& spec) {
  if (spec.phase == Phase::kSaturated) return spec.messages;
  return static_cast<int64_t>(std::ceil(spec.rate_per_s * spec.paced_seconds));
}

// Saturated: the source always has a backlog; stop when it is empty or the time cap passed.
Status RunSaturated(const RunSpec& spec, Pipeline& pipeline, BenchSource& source, RunResult* r) {
  Env* env = Env::Default();
  const int64_t every = std::max<int64_t>(1, spec.messages / std::max(1, spec.rss_samples));
  int64_t next_sample = every;
  const int64_t start = env->MonotonicMicros();
  const int64_t cap_us = static_cast<int64_t>(spec.max_seconds * 1e6);
  while (!source.Drained()) {
    IDEM_RETURN_IF_ERROR(CheckBatch(pipeline.RunOnce()));
    const int64_t acked = source.counts().acked;
    if (acked >= next_sample) {
      r->rss_kb_at.emplace_back(acked, CurrentRssKb());
      next_sample += every;
    }
    if (cap_us > 0 && env->MonotonicMicros() - start >= cap_us) break;
  }
  r->seconds = static_cast<double>(env->MonotonicMicros() - start) / 1e6;
  return Status::OK();
}

// Paced: a producer thread publishes at the offered rate while this thread consumes.
Status RunPaced(const RunSpec& spec, Pipeline& pipeline, BenchSource& source, PayStream& stream, RunResult* r) {
  Env* env = Env::Default();
  const int64_t total = MessagesOffered(spec);
  const int64_t start = env->MonotonicMicros();
  std::atomic<int64_t> last_publish_us{0};
  std::thread producer([&] {
    for (int64_t i = 0; i < total; ++i) {
      const int64_t due = start + static_cast<int64_t>(static_cast<double>(i) * 1e6 / spec.rate_per_s);
      while (env->MonotonicMicros() < due) env->SleepMs(1);
      source.Publish(stream.Next());
    }
    last_publish_us = env->MonotonicMicros();
    source.Close();
  });
  Status status;
  while (!source.Drained() && status.ok()) status = CheckBatch(pipeline.RunOnce());
  if (!status.ok()) source.Close();  // (the producer still publishes its last messages, then stops)
  producer.join();
  const int64_t end = env->MonotonicMicros();
  r->seconds = static_cast<double>(end - start) / 1e6;
  r->latency = SummariseLatencies(source.latencies_us());
  r->drain_seconds = static_cast<double>(end - last_publish_us.load()) / 1e6;
  // A consumer that keeps up settles the last messages within a batch or two.
  r->overloaded = r->drain_seconds > std::max(0.2, 0.1 * spec.paced_seconds);
  return status;
}

}  // namespace

PhaseMeter::PhaseMeter(RunResult* r) : r_(r) {
  r->rss_start_kb = CurrentRssKb();
  const CpuTimes cpu = ProcessCpuTimes();
  user_s_ = cpu.user_s;
  system_s_ = cpu.system_s;
  written_ = BytesWritten();
}

void PhaseMeter::Stop() {
  const CpuTimes cpu = ProcessCpuTimes();
  r_->cpu_user_s = cpu.user_s - user_s_;
  r_->cpu_system_s = cpu.system_s - system_s_;
  r_->bytes_written = BytesWritten() - written_;
}

std::string FileNameFor(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

void RemoveSqliteFiles(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
}

Status CheckBatch(const BatchReport& b) {
  if (!b.status.ok()) return b.status;
  if (b.released + b.in_flight + b.retried + b.parked + b.conflict == 0) return Status::OK();
  return Status::Unavailable("a batch did not acknowledge everything (" + std::to_string(b.released) + " released, " +
                             std::to_string(b.in_flight) + " in flight, " + std::to_string(b.retried) + " retried, " +
                             std::to_string(b.parked) + " parked, " + std::to_string(b.conflict) +
                             " conflicts): is the store or Redis reachable?");
}

RunResult RunOne(const RunSpec& spec) {
  if (!spec.broker.empty()) return RunEndToEnd(spec);
  Env* env = Env::Default();
  RunResult r;
  r.spec = spec;
  Rig rig;
  const int64_t setup_start = env->MonotonicMicros();
  if (Status s = OpenRig(spec, &rig); !s.ok()) {
    r.error = "cannot open the store or the fast filter: " + s.ToString();
    return r;
  }
  const int64_t offered = MessagesOffered(spec);
  SeedPlan seed;
  seed.order = spec.keys;
  seed.history = spec.history;
  seed.new_orders = PayStream::UniqueIn(spec.seed, spec.duplicate_ratio, offered);
  seed.history_records = spec.variant != Variant::kCeiling;
  seed.consumer_group = rig.group;
  seed.fresh_store = !rig.sqlite_path.empty();
  if (Status s = SeedStore(*rig.store, seed); !s.ok()) {
    r.error = "cannot seed the store: " + s.ToString();
    return r;
  }

  PayStream stream(spec.seed, spec.duplicate_ratio, spec.keys, spec.history);
  std::unique_ptr<BenchSource> made = spec.phase == Phase::kSaturated
                                          ? std::make_unique<BenchSource>(&stream, offered, env)
                                          : std::make_unique<BenchSource>(env);
  BenchSource* source = made.get();
  ConsumerParts parts;
  parts.source = std::move(made);
  parts.store = std::move(rig.store);
  parts.fast_filter = std::move(rig.filter);
  ConsumerOptions co;
  co.pipeline = OptionsFor(spec, rig.group);
  auto consumer = Consumer::Assemble(std::move(parts), co, env);
  if (!consumer.ok()) {
    r.error = "cannot set up the pipeline: " + consumer.status().ToString();
    return r;
  }
  Pipeline& measured = (*consumer)->pipeline();
  Store& store = (*consumer)->store();
  // The ceiling is what the same work costs with no guard at all.
  if (spec.variant == Variant::kCeiling) PipelineTestHooks::TurnGuardOff(measured);
  Status s = measured.Register(BenchPayHandler(&rig.downstream, spec.variant == Variant::kCeiling, &rig.tally));
  if (!s.ok()) {
    r.error = "cannot set up the pipeline: " + s.ToString();
    return r;
  }
  r.setup_seconds = static_cast<double>(env->MonotonicMicros() - setup_start) / 1e6;

  PhaseMeter meter(&r);
  s = spec.phase == Phase::kSaturated ? RunSaturated(spec, measured, *source, &r)
                                      : RunPaced(spec, measured, *source, stream, &r);
  meter.Stop();
  const DecisionCounters& c = measured.counters();
  r.messages = source->counts().acked;
  r.unique = stream.unique();
  r.batches = c.batches.load();
  r.filtered = c.filtered.load();
  r.business_runs = rig.tally.business_runs;
  r.msgs_per_s = r.seconds > 0 ? static_cast<double>(r.messages) / r.seconds : 0;
  if (r.rss_kb_at.empty() || r.rss_kb_at.back().first != r.messages)
    r.rss_kb_at.emplace_back(r.messages, CurrentRssKb());
  // getrusage's high-water mark lags the kernel's per-thread RSS counters a
  // little; a sample taken by hand may be higher.
  r.peak_rss_kb = PeakRssKb();
  for (const auto& [messages, kb] : r.rss_kb_at) r.peak_rss_kb = std::max(r.peak_rss_kb, kb);
  if (!s.ok()) {
    r.error = "the pipeline failed: " + s.ToString();
    return r;
  }

  RunFacts facts;
  facts.history = spec.history;
  facts.messages = stream.messages();
  facts.unique = stream.unique();
  facts.unique_amount_cents = stream.unique_amount_cents();
  facts.guarded = spec.variant != Variant::kCeiling;
  facts.consumer_group = rig.group;
  facts.business_runs = rig.tally.business_runs;
  facts.oracle_skips = rig.tally.oracle_skips;
  facts.bank_debits = rig.downstream.debits;
  facts.settled = source->counts();
  facts.decided_first = c.first.load();
  facts.decided_duplicate = c.duplicate.load();
  VerifyRun(store, facts, &r);
  r.ok = r.check_failures.empty();
  if (!r.ok) r.error = "not exactly once: " + r.check_failures.front();

  // Leave a shared store as we found it; a SQLite file is simply removed.
  if (rig.sqlite_path.empty()) {
    if (auto tx = store.Begin(); tx.ok()) {
      (void)(*tx)->Exec("DELETE FROM idem_records WHERE consumer_group = ?", {rig.group});
      (void)(*tx)->Commit();
    }
  }
  consumer->reset();
  if (!rig.sqlite_path.empty()) RemoveSqliteFiles(rig.sqlite_path);
  return r;
}

}  // namespace idem::bench
