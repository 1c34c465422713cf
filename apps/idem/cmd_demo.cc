// idem demo: incident 001 and every cause of redelivery, each run
// with protection off (the incident's consumer) and on (idem), on the embedded
// default. Prints what each run left in its database. Exits 0 when idem showed
// no damage and blocked no legitimate message, 1 otherwise.
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "cli_checks.h"
#include "cli_util.h"
#include "demo/concurrent_runs.h"
#include "demo_report.h"
#include "service/json_log.h"
#ifdef IDEM_WITH_REDIS
#include "idem/redis_filter.h"
#endif

namespace idem::cli {
namespace {

namespace fs = std::filesystem;

struct DemoArgs {
  bool json = false;
  size_t messages = 1000;
  uint64_t seed = 1;
  std::string keep;
  std::vector<std::string> only;
  std::string store_url;
  std::string redis_url;
  std::string broker;
  int64_t speedup = 100;
  size_t jobs = 0;  // 0: chosen by DemoJobs
};

// The folder the runs write into: --keep DIR (created, must not hold an
// earlier demo), or a temporary folder removed afterwards.
class RunFolder {
 public:
  explicit RunFolder(const std::string& keep) : keep_(!keep.empty()) {
    if (keep_) {
      path_ = keep;
      std::error_code ec;
      fs::create_directories(path_, ec);
      if (ec) throw CliError("cannot create --keep folder '" + keep + "': " + ec.message(), 2);
      return;
    }
    // mkdtemp replaces the trailing six X with a unique suffix.
    std::string tmpl = (fs::temp_directory_path() / ("idem-demo-" + std::string(6, 'X'))).string();
    if (!mkdtemp(tmpl.data())) throw CliError("cannot create a temporary folder in " + fs::temp_directory_path().string());
    path_ = tmpl;
  }
  ~RunFolder() {
    std::error_code ec;
    if (!keep_) fs::remove_all(path_, ec);
  }
  // A fresh sub-folder for one run.
  std::string Sub(const std::string& name) const {
    fs::path p = fs::path(path_) / name;
    std::error_code ec;
    if (fs::exists(p / "store.db", ec) || fs::exists(p / "queue.db", ec))
      throw CliError("'" + p.string() + "' holds an earlier demo run; pass an empty folder to --keep", 2);
    fs::create_directories(p, ec);
    if (ec) throw CliError("cannot create '" + p.string() + "': " + ec.message());
    return p.string();
  }
  const std::string& path() const { return path_; }
  bool kept() const { return keep_; }

 private:
  bool keep_;
  std::string path_;
};

std::string Fmt1(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", seconds);
  return buf;
}

// The filter connects lazily and, failing closed, holds every message back
// while Redis is unreachable: without this check a demo pointed at a stopped
// Redis would wait quietly forever.
void CheckRedisAnswers(const std::string& url) {
  if (url.empty()) return;
#ifdef IDEM_WITH_REDIS
  if (Status s = PingRedis(url); !s.ok())
    throw CliError("--redis-url " + RedactUrl(url) + " does not answer: " + s.message() +
                   "; start Redis there, correct the URL, or leave out --redis-url");
#else
  throw CliError("--redis-url needs the Redis filter, which this build leaves out "
                 "(configure with -DIDEM_WITH_REDIS=ON)",
                 2);
#endif
}

// How many runs go at once. On a broker a run mostly waits (rebalances and
// retry delays take real time), so every run starts at once and the demo
// takes as long as its longest run. On the embedded queue a run computes on a
// simulated clock, so one run per core. Either way each run has its own
// folder, store, queue or topic and consumer group, so no run sees another.
size_t DemoJobs(const DemoArgs& a, size_t runs) {
  if (a.jobs > 0) return a.jobs;
  if (!a.broker.empty()) return runs;
  return std::max<size_t>(1, std::thread::hardware_concurrency());
}

bool Selected(const DemoArgs& a, const demo::ScenarioInfo& s) {
  if (a.only.empty()) return true;
  for (const std::string& id : a.only)
    if (id == s.id) return true;
  return false;
}

demo::RunReport RunOne(const DemoArgs& a, const demo::Workload& w, bool protection,
                           const std::string& dir, const std::string& label, const std::string& schema) {
  demo::RunOptions o;
  o.protection = protection;
  o.dir = dir;
  o.store_url = a.store_url;
  o.schema = schema;
  o.redis_url = a.redis_url;
  o.broker_url = a.broker;
  o.speedup = a.speedup;
  auto r = demo::RunScenario(w, o);
  if (!r.ok())
    throw CliError(label + " failed: " + r.status().ToString() +
                   (a.keep.empty() ? "" : " (databases in " + dir + ")"));
  return std::move(*r);
}

void Run(const DemoArgs& a) {
  if (!a.broker.empty() && a.broker.rfind("amqp://", 0) != 0 && a.broker.rfind("kafka://", 0) != 0)
    throw CliError("--broker takes a RabbitMQ URL, e.g. amqp://guest:guest@127.0.0.1:5672/%2f, or a Kafka "
                   "URL, e.g. kafka://mock or kafka://127.0.0.1:9092 "
                   "(without --broker the demo runs on the embedded queue)",
                   2);
  CheckRedisAnswers(a.redis_url);
  for (const std::string& id : a.only) {
    bool known = false;
    for (const auto& s : demo::Scenarios()) known |= id == s.id;
    if (!known) throw CliError("unknown scenario '" + id + "'; the scenarios are 001, A1, A2, A3, A4, A5, A6", 2);
  }
  RunFolder folder(a.keep);
  // The broker adapters' own lines (Kafka's rebalances, librdkafka's errors)
  // go to a JSON log in the run folder, not between the progress lines.
  std::ofstream adapter_log_file(fs::path(folder.path()) / "adapters.jsonl");
  service::JsonLog adapter_log(&adapter_log_file, Env::Default());
  const service::BackendLogRoute adapter_route(&adapter_log);
  DemoSummary summary;
  summary.seed = a.seed;
  summary.messages = a.messages;
  if (folder.kept()) summary.kept_in = folder.path();
  const bool mysql = a.store_url.rfind("mysql://", 0) == 0 || a.store_url.rfind("mariadb://", 0) == 0;
  const std::string store = a.store_url.empty()
                                ? "a real SQLite store"
                                : std::string(mysql ? "MySQL/MariaDB (" : "PostgreSQL (") + RedactUrl(a.store_url) + ")";
  const std::string filter = a.redis_url.empty() ? "" : " with the Redis fast filter (idem runs)";
  const std::string queue =
      a.broker.empty() ? "the embedded queue"
      : a.broker.rfind("kafka://", 0) == 0
          ? "Kafka (" + RedactUrl(a.broker) + "; a topic and consumer group per run, in real time " +
                std::to_string(a.speedup) + "x faster than the scenario clock)"
          : "RabbitMQ (" + RedactUrl(a.broker) + "; a queue per run, in real time " + std::to_string(a.speedup) +
                "x faster than the scenario clock)";
  if (!a.store_url.empty() || !a.redis_url.empty() || !a.broker.empty())
    summary.setup = store + filter + " and " + queue;

  // Every run of the selection, in the table's order: each scenario off, then idem.
  struct Planned {
    const demo::ScenarioInfo* scenario;
    size_t workload;  // index into workloads
    bool protection;
    std::string label, schema, dir;
  };
  std::vector<demo::Workload> workloads;  // one per selected scenario, shared by its two runs
  std::vector<Planned> plan;
  for (const auto& s : demo::Scenarios()) {
    if (!Selected(a, s)) continue;
    workloads.push_back(demo::MakeWorkload(s.cause, {a.seed, a.messages}));
    for (bool protection : {false, true}) {
      const std::string mode = protection ? "idem" : "off";
      std::string schema = "idem_demo_" + std::string(s.id) + "_" + mode;
      for (char& ch : schema) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      plan.push_back({&s, workloads.size() - 1, protection, std::string(s.id) + " " + s.name + " (" + mode + ")", schema,
                      folder.Sub(std::string(s.id) + "-" + mode)});
    }
  }
  const size_t jobs = DemoJobs(a, plan.size());
  std::cerr << plan.size() << " runs, " << (jobs <= 1 ? std::string("one after another")
                                                      : std::to_string(std::min(jobs, plan.size())) + " at a time")
            << "; a line as each finishes\n";
  std::vector<demo::RunReport> reports(plan.size());
  std::mutex progress_mu;
  size_t done = 0;
  demo::RunConcurrently(plan.size(), jobs, [&](size_t i) {
    const Planned& p = plan[i];
    const demo::Workload& w = workloads[p.workload];
    auto progress = [&](const std::string& what) {
      std::lock_guard<std::mutex> lock(progress_mu);
      std::cerr << "[" << ++done << "/" << plan.size() << "] " << p.label << ": " << what << "\n";
    };
    try {
      reports[i] = RunOne(a, w, p.protection, p.dir, p.label, p.schema);
    } catch (const CliError&) {
      progress("failed");  // the error follows on its own once the other runs have ended
      throw;
    }
    const demo::RunReport& r = reports[i];
    progress(std::to_string(r.damage.double_charges) + " double charge(s), " +
             std::to_string(r.duplicate_deliveries) + " duplicate deliveries, " + Fmt1(r.wall_seconds) + " s");
  });
  for (size_t i = 0; i < plan.size(); i += 2)
    summary.rows.push_back({plan[i].scenario, std::move(reports[i]), std::move(reports[i + 1])});

  if (a.json) std::cout << RenderJson(summary).dump(2) << "\n";
  else std::cout << RenderTable(summary);
  if (!summary.IdemClean())
    throw CliError("idem showed damage or blocked a legitimate message; see the table (--json for every count)");
}

}  // namespace

void AddDemoCommand(CLI::App& app) {
  auto args = std::make_shared<DemoArgs>();
  auto* cmd = app.add_subcommand(
      "demo",
      "Replay the double-charge incident and every cause of duplicate delivery, without and with idem.\n\n"
      "Incident 001: a payment was charged twice, 17 s apart, because a message was redelivered after the\n"
      "charge and the consumer had no idempotency. This command rebuilds that consumer faithfully (AUTO ack,\n"
      "no consumption records, read-modify-write balance, unchecked UPDATE, ledger without a unique key) and\n"
      "runs it against the payments service behind idem, on the same seeded workload, for each cause:\n"
      "  001  the incident: a notice throws after the charge, the message is requeued, a 2nd instance charges\n"
      "  A1   producer resend (same and new message id)      A4  throw after a partial side effect\n"
      "  A2   crash after commit, before ack                  A5  rebalance to a second consumer\n"
      "  A3   visibility timeout, second consumer takes over  A6  out of order: a late PAID after SHIPPED\n\n"
      "Everything runs in one process on the embedded default (a SQLite store and an embedded queue in a\n"
      "temporary folder, or in --keep DIR) with a simulated clock, so one seed replays the same run. With\n"
      "--broker amqp://... the same runs go through a real RabbitMQ in real time: publications go out when\n"
      "their time comes, retries wait in RabbitMQ's TTL queues, a crashed or stalled consumer's connection is\n"
      "dropped so RabbitMQ redelivers what it held. The faults are the same; real timing decides which copies\n"
      "meet, so the naive consumer's counts vary from run to run (idem's may not). The\n"
      "table's effects, charges, balances, states and blocked counts are read from each run's database and\n"
      "terminal queue afterwards; deliveries are counted as the queue hands them out:\n"
      "  duplicate delivered  copies the broker handed out beyond the first of each event\n"
      "  effect rows          ledger, points, stock and notice rows found / a correct run writes\n"
      "  double charges       payments with more than one PAY_DEDUCT ledger row\n"
      "  wrong balances       accounts whose balance is not what the legitimate events make it\n"
      "  regressed states     orders whose state is behind where their events lead\n"
      "  legit blocked        legitimate events (e.g. a second payment with a new id) without their effect\n"
      "  msg/s                deliveries per second of real time while consuming (idle polling left out)\n\n"
      "The broker adapters' own log lines (Kafka rebalances, librdkafka errors) go to adapters.jsonl in the\n"
      "run folder (see --keep), one JSON object per line.\n"
      "The 14 runs (7 scenarios, off and idem) are independent: each has its own folder, store, queue or topic\n"
      "and consumer group. On the embedded queue they run one per core (a few seconds); with --broker all at\n"
      "once, since a run on a broker mostly waits, so the demo takes as long as its longest run (on\n"
      "kafka://mock A3 or A5, whose every hand-over is a group rebalance: well under 2 minutes). --jobs N\n"
      "changes how many go at once, not the table. stderr gets a line as each run finishes.\n"
      "Exit status: 0 when idem shows no damage and blocks nothing; 1 otherwise; 2 for bad usage.\n"
      "Examples:\n"
      "  idem demo\n"
      "  idem demo --messages 5000 --seed 42\n"
      "  idem demo --only 001 --keep /tmp/incident   (then: idem dlq list --broker /tmp/incident/001-idem/queue.db)\n"
      "  idem demo --broker amqp://guest:guest@127.0.0.1:5672/%2f --only 001,A2,A3\n"
      "  idem demo --broker kafka://mock   (librdkafka's in-process mock cluster; A5 is a real group rebalance)\n"
      "  idem demo --json | jq '.scenarios[] | {id, off: .off.double_charges, on: .on.double_charges}'");
  cmd->add_flag("--json", args->json, "Print one JSON document instead of the table");
  cmd->add_option("--messages", args->messages, "Business messages per scenario, before duplicates")
      ->capture_default_str()
      ->transform(IntegerIn(10, 1'000'000));
  cmd->add_option("--seed", args->seed, "Seed of the workload and the faults; the same seed gives the same run")
      ->capture_default_str()
      ->transform(UnsignedIn(0));
  cmd->add_option("--keep", args->keep, "Keep the databases in this folder (one sub-folder per scenario and mode)");
  cmd->add_option("--only", args->only, "Run only these scenarios, e.g. --only 001,A3")->delimiter(',');
  AddStoreOption(cmd, &args->store_url,
                  "Run the store on PostgreSQL or MySQL/MariaDB instead of SQLite, e.g.\n"
                  "postgresql://idem@127.0.0.1:5432/idem or mysql://idem:PASSWORD@127.0.0.1:3306/idem\n"
                  "(each run gets its own schema idem_demo_<scenario>_<mode> — on MySQL its own database —,\n"
                  "dropped and re-created)");
  cmd->add_option("--redis-url", args->redis_url,
                  "Put the Redis fast filter in front of the guard for the idem runs, e.g. redis://127.0.0.1:6379")
      ->check(FastFilterUrl());
  AddBrokerOption(cmd, &args->broker,
                  "Run on RabbitMQ or Kafka instead of the embedded queue, e.g. amqp://guest:guest@127.0.0.1:5672/%2f,\n"
                  "kafka://127.0.0.1:9092 or kafka://mock (real time; each run declares its own queues or topic\n"
                  "<schema>.<run id> and consumer group, left for inspection)");
  cmd->add_option("--speedup", args->speedup,
                  "With --broker: how much faster than real time the scenario clock runs (a 30 s retry\n"
                  "rung waits 30 s / speedup in RabbitMQ's wait queue)")
      ->capture_default_str()
      ->transform(IntegerIn(1, 10'000));
  cmd->add_option("--jobs", args->jobs,
                  "How many runs go at once (default: with --broker all of them, since a run on a broker\n"
                  "mostly waits; on the embedded queue one per core). It changes how long the demo takes,\n"
                  "not what a run does; the progress lines come in the order the runs finish")
      ->transform(IntegerIn(1, 64));
  cmd->callback([args] { Run(*args); });
}

}  // namespace idem::cli
