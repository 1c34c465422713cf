#include "harness/run_end_to_end.h"

#include <unistd.h>

#include <memory>

#include "harness/bench_handler.h"
#include "harness/bench_seed.h"
#include "harness/counting_source.h"
#include "harness/process_memory.h"
#include "harness/run_one.h"
#include "harness/verify_run.h"
#include "idem/broker.h"
#include "idem/consumer.h"
#include "idem/pipeline.h"
#include "core/pipeline_test_hooks.h"

namespace idem::bench {
namespace {

constexpr size_t kPublishChunk = 500;
// A broker that stops delivering before every message came back fails the run
// instead of hanging it.
constexpr int64_t kStallMs = 20'000;

std::string WithParameter(const std::string& url, const std::string& parameter) {
  return url + (url.find('?') == std::string::npos ? "?" : "&") + parameter;
}

// The broker URL of this run: its own queue file, the store's file, or a queue
// (RabbitMQ) or consumer group (Kafka) of its own on a shared server.
std::string BrokerUrl(const RunSpec& spec, const std::string& store_path, const std::string& unique) {
  if (spec.broker == "queue") return "queue:" + spec.work_dir + "/" + FileNameFor(spec.name) + ".queue.db";
  if (spec.broker == "queue-in-store") return "queue:" + store_path;
  if (spec.broker.rfind("amqp", 0) == 0) return WithParameter(spec.broker, "queue=" + unique);
  if (spec.broker.rfind("kafka://", 0) == 0) return WithParameter(spec.broker, "group=" + unique);
  return spec.broker;
}

Status Fill(Publisher& publisher, PayStream& stream, int64_t messages) {
  std::vector<Message> chunk;
  while (stream.messages() < messages) {
    chunk.clear();
    while (chunk.size() < kPublishChunk && stream.messages() < messages) chunk.push_back(stream.Next());
    IDEM_RETURN_IF_ERROR(publisher.PublishBatch(chunk));
  }
  return Status::OK();
}

// The broker's own loop: poll a batch, acknowledge all of it.
Status RawLoop(const RunSpec& spec, Source& source, int64_t messages, int64_t* acked) {
  Env* env = Env::Default();
  const int64_t linger_ms = PipelineOptions{}.max_linger_ms;
  int64_t idle_since = env->NowMs();
  std::vector<Settlement> acks;
  while (*acked < messages) {
    auto polled = source.Poll(spec.batch_size, linger_ms);
    if (!polled.ok()) return polled.status();
    if (polled->empty()) {
      if (env->NowMs() - idle_since > kStallMs) break;
      continue;
    }
    idle_since = env->NowMs();
    acks.clear();
    for (const Message& m : *polled) acks.push_back({&m, Settlement::Kind::kAck});
    IDEM_RETURN_IF_ERROR(source.Settle(acks));
    *acked += static_cast<int64_t>(acks.size());
  }
  return Status::OK();
}

Status IdemLoop(Pipeline& pipeline, CountingSource& source, int64_t messages) {
  Env* env = Env::Default();
  int64_t idle_since = env->NowMs();
  while (source.counts().acked < messages) {
    BatchReport b = pipeline.RunOnce();
    IDEM_RETURN_IF_ERROR(CheckBatch(b));
    if (b.polled > 0) idle_since = env->NowMs();
    else if (env->NowMs() - idle_since > kStallMs) break;
  }
  return Status::OK();
}

}  // namespace

RunResult RunEndToEnd(const RunSpec& spec) {
  Env* env = Env::Default();
  RunResult r;
  r.spec = spec;
  const int64_t setup_start = env->MonotonicMicros();
  const std::string unique = "idem-bench-" + std::to_string(getpid()) + "-" + std::to_string(env->NowMs());
  const std::string store_path = spec.work_dir + "/" + FileNameFor(spec.name) + ".db";
  const std::string queue_path = spec.work_dir + "/" + FileNameFor(spec.name) + ".queue.db";
  RemoveSqliteFiles(store_path);
  RemoveSqliteFiles(queue_path);
  // idem and the ceiling both run the pipeline; the ceiling with the guard off.
  const bool idem = spec.variant != Variant::kRaw;
  const bool ceiling = spec.variant == Variant::kCeiling;

  // The store first: with the queue in the store's file, the schema and the
  // seed data are there before the queue opens it.
  std::unique_ptr<Store> store;
  if (idem) {
    auto opened = OpenStore("sqlite:" + store_path, env);
    if (!opened.ok()) {
      r.error = "cannot open the store: " + opened.status().ToString();
      return r;
    }
    store = std::move(*opened);
    SeedPlan seed;
    seed.order = spec.keys;
    seed.new_orders = PayStream::UniqueIn(spec.seed, spec.duplicate_ratio, spec.messages);
    seed.consumer_group = unique;
    seed.fresh_store = true;
    if (Status s = SeedStore(*store, seed); !s.ok()) {
      r.error = "cannot seed the store: " + s.ToString();
      return r;
    }
  }
  BrokerOptions bo;
  bo.prefetch = PrefetchFor(spec.batch_size);  // what `idem run` asks for
  auto broker = OpenBroker(BrokerUrl(spec, store_path, unique), bo, env);
  if (!broker.ok()) {
    r.error = "cannot open the broker: " + broker.status().ToString();
    return r;
  }
  PayStream stream(spec.seed, spec.duplicate_ratio, spec.keys, 0);
  if (Status s = Fill((*broker)->publisher(), stream, spec.messages); !s.ok()) {
    r.error = "cannot publish the messages: " + s.ToString();
    return r;
  }

  CountingDownstream downstream;
  HandlerTally tally;
  // idem polls the broker through a CountingSource in a consumer assembled as
  // `idem run`'s is; the raw loop polls the CountingSource itself.
  CountingSource* counted = nullptr;
  std::unique_ptr<CountingSource> raw_source;
  std::unique_ptr<Consumer> consumer;
  Pipeline* pipeline = nullptr;
  if (idem) {
    auto assembled = AssembleCounted(std::move(*broker), std::move(store), unique, spec.batch_size, env, &counted);
    if (!assembled.ok()) {
      r.error = "cannot set up the pipeline: " + assembled.status().ToString();
      return r;
    }
    consumer = std::move(*assembled);
    pipeline = &consumer->pipeline();
    // The same work as idem on the same broker with no guard: what idem could
    // hope for here, as the in-memory ceiling is on the in-memory source.
    if (ceiling) PipelineTestHooks::TurnGuardOff(*pipeline);
    if (Status s = pipeline->Register(BenchPayHandler(&downstream, ceiling, &tally)); !s.ok()) {
      r.error = "cannot set up the pipeline: " + s.ToString();
      return r;
    }
  } else {
    raw_source = std::make_unique<CountingSource>(&(*broker)->source());
    counted = raw_source.get();
  }
  CountingSource& source = *counted;
  r.setup_seconds = static_cast<double>(env->MonotonicMicros() - setup_start) / 1e6;

  PhaseMeter meter(&r);
  const int64_t start = env->MonotonicMicros();
  int64_t raw_acked = 0;
  Status s = idem ? IdemLoop(*pipeline, source, spec.messages) : RawLoop(spec, source, spec.messages, &raw_acked);
  r.seconds = static_cast<double>(env->MonotonicMicros() - start) / 1e6;
  meter.Stop();
  r.messages = idem ? source.counts().acked : raw_acked;
  r.unique = stream.unique();
  r.msgs_per_s = r.seconds > 0 ? static_cast<double>(r.messages) / r.seconds : 0;
  r.peak_rss_kb = PeakRssKb();
  r.rss_kb_at.emplace_back(r.messages, CurrentRssKb());
  if (!s.ok()) {
    r.error = (idem ? "the pipeline failed: " : "the raw loop failed: ") + s.ToString();
    return r;
  }
  if (idem) {
    const DecisionCounters& c = pipeline->counters();
    r.batches = c.batches.load();
    r.business_runs = tally.business_runs;
    RunFacts facts;
    facts.messages = stream.messages();
    facts.unique = stream.unique();
    facts.unique_amount_cents = stream.unique_amount_cents();
    facts.guarded = !ceiling;
    facts.consumer_group = unique;
    facts.business_runs = tally.business_runs;
    facts.oracle_skips = tally.oracle_skips;
    facts.bank_debits = downstream.debits;
    facts.settled = source.counts();
    facts.decided_first = c.first.load();
    facts.decided_duplicate = c.duplicate.load();
    VerifyRun(consumer->store(), facts, &r);
  } else if (raw_acked == spec.messages) {
    r.checks_passed.push_back("settled: every message published was polled and acknowledged once");
  } else {
    r.check_failures.push_back("settled: " + std::to_string(raw_acked) + " of " + std::to_string(spec.messages) +
                               " messages came back from the broker");
  }
  r.ok = r.check_failures.empty();
  if (!r.ok) r.error = "not exactly once: " + r.check_failures.front();
  consumer.reset();
  raw_source.reset();
  broker->reset();
  RemoveSqliteFiles(store_path);
  RemoveSqliteFiles(queue_path);
  return r;
}

}  // namespace idem::bench
