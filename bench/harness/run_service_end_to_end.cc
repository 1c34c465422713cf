#include "harness/run_service_end_to_end.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "harness/bench_handler.h"
#include "harness/bench_seed.h"
#include "harness/counting_source.h"
#include "harness/process_memory.h"
#include "harness/queue_drain_watch.h"
#include "harness/run_one.h"
#include "harness/verify_run.h"
#include "idem/broker.h"
#include "idem/consumer.h"
#include "idem/pipeline.h"

namespace idem::bench {
namespace {

constexpr size_t kPublishChunk = 500;
// `idem run --until-idle` exits once a poll finds the queue empty; a process
// still there this long after the queue drained is stuck, and is killed.
constexpr int64_t kExitWaitMs = 60'000;

struct Paths {
  std::string store, queue, config, log;
};

Paths PathsOf(const RunSpec& spec) {
  const std::string base = spec.work_dir + "/" + FileNameFor(spec.name);
  Paths p{base + ".db", base + ".queue.db", base + ".toml", base + ".log"};
  if (spec.broker == "queue-in-store") p.queue = p.store;
  return p;
}

void RemoveFiles(const Paths& p) {
  RemoveSqliteFiles(p.store);
  RemoveSqliteFiles(p.queue);
  std::remove(p.config.c_str());
  std::remove(p.log.c_str());
}

BrokerOptions QueueOptions(size_t batch_size) {
  BrokerOptions bo;
  bo.prefetch = PrefetchFor(batch_size);  // what `idem run` asks for
  return bo;
}

// The store seeded and the messages in the queue, every connection closed again:
// each consumer opens its own, as a process starting on these files would.
Status Prepare(const RunSpec& spec, const Paths& p, const std::string& group, PayStream* stream) {
  Env* env = Env::Default();
  auto store = OpenStore("sqlite:" + p.store, env);
  if (!store.ok()) return store.status();
  SeedPlan seed;
  seed.order = spec.keys;
  seed.new_orders = PayStream::UniqueIn(spec.seed, spec.duplicate_ratio, spec.messages);
  seed.consumer_group = group;
  seed.fresh_store = true;
  IDEM_RETURN_IF_ERROR(SeedStore(**store, seed));
  auto broker = OpenBroker("queue:" + p.queue, QueueOptions(spec.batch_size), env);
  if (!broker.ok()) return broker.status();
  std::vector<Message> chunk;
  while (stream->messages() < spec.messages) {
    chunk.clear();
    while (chunk.size() < kPublishChunk && stream->messages() < spec.messages) chunk.push_back(stream->Next());
    IDEM_RETURN_IF_ERROR((*broker)->publisher().PublishBatch(chunk));
  }
  return Status::OK();
}

void TakeDrain(const QueueDrain& d, RunResult* r) {
  r->messages = d.left_at_first;
  r->seconds = d.seconds();
  r->msgs_per_s = d.msgs_per_s();
}

// The library's pipeline over the queue, watched from a second thread.
void RunLibrary(const RunSpec& spec, const Paths& p, const std::string& group, const PayStream& stream,
                RunResult* r) {
  Env* env = Env::Default();
  auto store = OpenStore("sqlite:" + p.store, env);
  if (!store.ok()) {
    r->error = "cannot open the store: " + store.status().ToString();
    return;
  }
  auto broker = OpenBroker("queue:" + p.queue, QueueOptions(spec.batch_size), env);
  if (!broker.ok()) {
    r->error = "cannot open the queue: " + broker.status().ToString();
    return;
  }
  // Assembled as `idem run`'s consumer is, with a CountingSource on top.
  CountingSource* counted = nullptr;
  auto consumer = AssembleCounted(std::move(*broker), std::move(*store), group, spec.batch_size, env, &counted);
  if (!consumer.ok()) {
    r->error = "cannot set up the pipeline: " + consumer.status().ToString();
    return;
  }
  CountingSource& source = *counted;
  Pipeline& pipeline = (*consumer)->pipeline();
  CountingDownstream downstream;
  HandlerTally tally;
  if (Status s = pipeline.Register(BenchPayHandler(&downstream, /*skip_marked_copies=*/false, &tally)); !s.ok()) {
    r->error = "cannot set up the pipeline: " + s.ToString();
    return;
  }
  Result<QueueDrain> drain = Status::Unavailable("the watch did not run");
  std::thread watch([&] { drain = WatchQueueDrain(p.queue, {}); });
  Status loop = Status::OK();
  for (int64_t idle_since = env->NowMs(); source.counts().acked < spec.messages;) {
    BatchReport b = pipeline.RunOnce();
    if (loop = CheckBatch(b); !loop.ok()) break;
    if (b.polled > 0) idle_since = env->NowMs();
    else if (env->NowMs() - idle_since > QueueDrainOptions{}.stall_ms) break;
  }
  watch.join();
  r->peak_rss_kb = PeakRssKb();
  if (!loop.ok() || !drain.ok()) {
    r->error = !loop.ok() ? "the pipeline failed: " + loop.ToString() : "the watch failed: " + drain.status().ToString();
    return;
  }
  TakeDrain(*drain, r);
  const DecisionCounters& c = pipeline.counters();
  r->batches = c.batches.load();
  r->business_runs = tally.business_runs;
  RunFacts facts;
  facts.messages = stream.messages();
  facts.unique = stream.unique();
  facts.unique_amount_cents = stream.unique_amount_cents();
  facts.consumer_group = group;
  facts.business_runs = tally.business_runs;
  facts.bank_debits = downstream.debits;
  facts.settled = source.counts();
  facts.decided_first = c.first.load();
  facts.decided_duplicate = c.duplicate.load();
  VerifyRun((*consumer)->store(), facts, r);
}

std::string LogTail(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last.empty() ? "(no output)" : last;
}

// `idem run` as a child process; its JSON log goes to p.log.
Result<pid_t> StartService(const RunSpec& spec, const Paths& p) {
  const int log = open(p.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0) return Status::IOError("cannot create " + p.log);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(log);
    return Status::IOError("cannot fork for idem run");
  }
  if (pid == 0) {
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    const char* argv[] = {spec.idem_path.c_str(), "run", "--config", p.config.c_str(), "--until-idle", nullptr};
    execv(spec.idem_path.c_str(), const_cast<char* const*>(argv));
    _exit(127);
  }
  close(log);
  return pid;
}

// Waits for `pid` at most kExitWaitMs, then kills it; its exit status, or -1 when killed.
int WaitExit(pid_t pid) {
  Env* env = Env::Default();
  const int64_t until = env->NowMs() + kExitWaitMs;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (env->NowMs() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void RunService(const RunSpec& spec, const Paths& p, const std::string& group, const PayStream& stream,
                RunResult* r) {
  if (spec.idem_path.empty()) {
    r->error = "no idem program to run (the bench runs `idem run` from its own binary)";
    return;
  }
  {
    std::ofstream config(p.config);
    config << ServiceRunConfig("queue:" + p.queue, "sqlite:" + p.store, group, spec.batch_size, spec.log_decisions);
    if (!config) {
      r->error = "cannot write " + p.config;
      return;
    }
  }
  auto pid = StartService(spec, p);
  if (!pid.ok()) {
    r->error = pid.status().ToString();
    return;
  }
  int early_exit = -2;  // the child's status if it ended before the queue drained
  QueueDrainOptions watch;
  watch.still_running = [&]() -> Status {
    int status = 0;
    if (waitpid(*pid, &status, WNOHANG) != *pid) return Status::OK();
    early_exit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return Status::Unavailable("idem run exited (status " + std::to_string(early_exit) +
                               ") before the queue was empty: " + LogTail(p.log));
  };
  Result<QueueDrain> drain = WatchQueueDrain(p.queue, watch);
  const int code = early_exit != -2 ? early_exit : WaitExit(*pid);
  rusage children{};
  getrusage(RUSAGE_CHILDREN, &children);
  r->peak_rss_kb = children.ru_maxrss;
  if (!drain.ok()) {
    r->error = "the watch failed: " + drain.status().ToString();
    return;
  }
  TakeDrain(*drain, r);
  r->checks_passed.push_back("the queue is empty: every message acknowledged, none parked or waiting for a retry");
  if (code == 0) r->checks_passed.push_back("idem run exited 0 once the queue was empty");
  else r->check_failures.push_back("idem run exited " + std::to_string(code) + ": " + LogTail(p.log));
  auto store = OpenStore("sqlite:" + p.store, Env::Default());
  if (!store.ok()) {
    r->error = "cannot open the store to check it: " + store.status().ToString();
    return;
  }
  RunFacts facts;
  facts.messages = stream.messages();
  facts.unique = stream.unique();
  facts.unique_amount_cents = stream.unique_amount_cents();
  facts.consumer_group = group;
  VerifyEffects(**store, facts, r);
}

}  // namespace

std::string ServiceRunConfig(const std::string& queue_url, const std::string& store_url, const std::string& group,
                             size_t batch_size, bool log_decisions) {
  std::ostringstream t;
  t << "# Written by idem bench for one run: `idem run` against the library's pipeline.\n"
    << "[broker]\nurl = \"" << queue_url << "\"\n\n"
    << "[store]\nurl = \"" << store_url << "\"\n\n"
    << (log_decisions ? "" : "[service]\nlog_decisions = false\n\n")
    << "[[consumer]]\ngroup = \"" << group << "\"\nworkers = 1\nbatch_size = " << batch_size
    << "\nmax_linger_ms = " << PipelineOptions{}.max_linger_ms << "\nhandlers = [\"payments\"]\n";
  return t.str();
}

RunResult RunServiceEndToEnd(const RunSpec& spec) {
  Env* env = Env::Default();
  RunResult r;
  r.spec = spec;
  const int64_t setup_start = env->MonotonicMicros();
  const Paths p = PathsOf(spec);
  RemoveFiles(p);
  const std::string group = "idem-bench-" + std::to_string(getpid()) + "-" + std::to_string(env->NowMs());
  PayStream stream(spec.seed, spec.duplicate_ratio, spec.keys, 0);
  if (Status s = Prepare(spec, p, group, &stream); !s.ok()) {
    r.error = "cannot prepare the store and the queue: " + s.ToString();
    RemoveFiles(p);
    return r;
  }
  r.setup_seconds = static_cast<double>(env->MonotonicMicros() - setup_start) / 1e6;
  r.unique = stream.unique();
  if (spec.variant == Variant::kService) RunService(spec, p, group, stream, &r);
  else RunLibrary(spec, p, group, stream, &r);
  r.ok = r.error.empty() && r.check_failures.empty();
  if (r.error.empty() && !r.ok) r.error = "not exactly once: " + r.check_failures.front();
  RemoveFiles(p);
  return r;
}

}  // namespace idem::bench
