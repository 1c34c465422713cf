#include "workers/workers_bench.h"

#include <unistd.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "harness/bench_handler.h"
#include "harness/bench_seed.h"
#include "harness/bench_source.h"
#include "harness/pay_stream.h"
#include "idem/consumer.h"
#include "idem/pipeline.h"
#include "payments/events.h"

namespace idem::bench {
namespace {

struct Worker {
  std::unique_ptr<Consumer> consumer;  // owns the store and the source
  BenchSource* source = nullptr;
  Pipeline* pipeline = nullptr;
  CountingDownstream downstream;
  HandlerTally tally;
  Status status;
};

int64_t CountOf(Store& store, const std::string& sql) {
  auto tx = store.Begin();
  if (!tx.ok()) return -1;
  auto rows = (*tx)->Query(sql, {});
  return rows.ok() && !rows->empty() ? AsInt((*rows)[0][0]) : -1;
}

}  // namespace

WorkersResult RunWorkers(const WorkersSpec& spec) {
  Env* env = Env::Default();
  WorkersResult r;
  r.spec = spec;
  auto seed_store = OpenStore(spec.store_url, env);
  if (!seed_store.ok()) {
    r.error = "cannot open the store: " + seed_store.status().ToString();
    return r;
  }
  const std::string group = "idem-bench-workers-" + std::to_string(getpid()) + "-" + std::to_string(env->NowMs());
  SeedPlan seed;
  seed.new_orders = PayStream::UniqueIn(spec.seed, spec.duplicate_ratio, spec.messages);
  seed.consumer_group = group;
  if (Status s = SeedStore(**seed_store, seed); !s.ok()) {
    r.error = "cannot seed the store: " + s.ToString();
    return r;
  }

  std::vector<std::unique_ptr<Worker>> workers;
  for (int i = 0; i < spec.workers; ++i) {
    auto w = std::make_unique<Worker>();
    auto store = OpenStore(spec.store_url, env);
    if (!store.ok()) {
      r.error = "cannot open worker " + std::to_string(i) + "'s store: " + store.status().ToString();
      return r;
    }
    auto source = std::make_unique<BenchSource>(env);
    w->source = source.get();
    ConsumerParts parts;
    parts.source = std::move(source);
    parts.store = std::move(*store);
    ConsumerOptions co;
    co.pipeline.consumer_group = group;
    co.pipeline.batch_size = spec.batch_size;
    co.pipeline.max_linger_ms = 5;
    co.pipeline.transaction_conflict_tries = 20;  // count the reruns; do not give up on a busy moment
    auto consumer = Consumer::Assemble(std::move(parts), co, env);
    if (!consumer.ok()) {
      r.error = "cannot set up worker " + std::to_string(i) + ": " + consumer.status().ToString();
      return r;
    }
    w->consumer = std::move(*consumer);
    w->pipeline = &w->consumer->pipeline();
    if (Status s = w->pipeline->Register(BenchPayHandler(&w->downstream, false, &w->tally)); !s.ok()) {
      r.error = "cannot set up the pipeline: " + s.ToString();
      return r;
    }
    workers.push_back(std::move(w));
  }

  // The whole stream is dealt before the clock starts: every worker has a backlog.
  PayStream stream(spec.seed, spec.duplicate_ratio, KeyOrder::kSequential, 0);
  for (int64_t i = 0; i < spec.messages; ++i) workers[i % spec.workers]->source->Publish(stream.Next());
  for (auto& w : workers) w->source->Close();
  r.unique = stream.unique();

  const int64_t start = env->MonotonicMicros();
  std::vector<std::thread> threads;
  for (auto& w : workers)
    threads.emplace_back([w = w.get()] {
      while (!w->source->Drained()) {
        BatchReport b = w->pipeline->RunOnce();
        if (!b.status.ok()) {
          w->status = b.status;
          return;
        }
      }
    });
  for (std::thread& t : threads) t.join();
  r.seconds = static_cast<double>(env->MonotonicMicros() - start) / 1e6;

  for (auto& w : workers) {
    if (!w->status.ok() && r.error.empty()) r.error = "a worker failed: " + w->status.ToString();
    r.messages += w->source->counts().acked;
    r.transaction_retries += w->pipeline->counters().transaction_retries.load();
  }
  r.msgs_per_s = r.seconds > 0 ? static_cast<double>(r.messages) / r.seconds : 0;
  const std::string flows = std::string("FROM pay_account_flows WHERE type = '") + payments::kFlowPay + "'";
  r.ledger_rows = CountOf(**seed_store, "SELECT COUNT(*) " + flows);
  r.charged_twice = CountOf(**seed_store, "SELECT COUNT(*) FROM (SELECT biz_no " + flows +
                                              " GROUP BY biz_no HAVING COUNT(*) > 1) AS twice");
  if (r.error.empty() && r.messages != spec.messages)
    r.error = std::to_string(spec.messages - r.messages) + " messages were not acknowledged";
  if (r.error.empty() && (r.ledger_rows != r.unique || r.charged_twice != 0))
    r.error = "not exactly once: " + std::to_string(r.ledger_rows) + " ledger rows for " + std::to_string(r.unique) +
              " payments, " + std::to_string(r.charged_twice) + " charged twice";
  r.ok = r.error.empty();
  return r;
}

nlohmann::json ToJson(const WorkersResult& r) {
  return {{"store", r.spec.store_label},      {"workers", r.spec.workers},
          {"batch_size", r.spec.batch_size},  {"duplicate_ratio", r.spec.duplicate_ratio},
          {"messages", r.messages},           {"unique", r.unique},
          {"seconds", r.seconds},             {"msgs_per_s", r.msgs_per_s},
          {"transaction_retries", r.transaction_retries}, {"ledger_rows", r.ledger_rows},
          {"charged_twice", r.charged_twice}, {"exactly_once", r.ok},
          {"error", r.error}};
}

WorkersResult WorkersResultFromJson(const nlohmann::json& j) {
  WorkersResult r;
  r.spec.store_label = j.value("store", std::string());
  r.spec.workers = j.value("workers", 0);
  r.spec.batch_size = j.value("batch_size", size_t{0});
  r.spec.duplicate_ratio = j.value("duplicate_ratio", 0.0);
  r.messages = j.value("messages", int64_t{0});
  r.unique = j.value("unique", int64_t{0});
  r.seconds = j.value("seconds", 0.0);
  r.msgs_per_s = j.value("msgs_per_s", 0.0);
  r.transaction_retries = j.value("transaction_retries", int64_t{0});
  r.ledger_rows = j.value("ledger_rows", int64_t{0});
  r.charged_twice = j.value("charged_twice", int64_t{0});
  r.ok = j.value("exactly_once", false);
  r.error = j.value("error", std::string());
  return r;
}

}  // namespace idem::bench
