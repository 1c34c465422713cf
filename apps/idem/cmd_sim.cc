// idem sim: the deterministic simulator. Runs the real pipeline, guard and
// handlers against a simulated broker, a fault-injecting SQLite store and a
// simulated Redis, over many seeds, and reports each checker on its own.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_checks.h"
#include "commands.h"
#include "sim/simulation.h"
#include "sim_workloads.h"

namespace idem::cli {
namespace {

struct SimArgs {
  uint64_t seeds = 200;
  uint64_t first_seed = 1;
  std::optional<uint64_t> seed;
  int events = 150;
  std::string model;
  std::string redis;
  std::string retry_mode;
  std::string protection = "on";
  std::string workload = kDefaultSimWorkload;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  bool json = false;
  bool trace = false;
  bool require_coverage = false;
};

sim::SimOptions OptionsFor(const SimArgs& a, uint64_t seed) {
  sim::SimOptions o;
  o.seed = seed;
  o.events = a.events;
  o.protection = a.protection != "off";
  o.keep_trace = a.trace;
  if (a.workload != kDefaultSimWorkload) o.workload = a.workload;
  if (!a.model.empty()) {
    sim::DeliveryModel m;
    // Checked at parse time (IsMember below); this runs on worker threads, where a throw would abort.
    if (sim::ParseModel(a.model, &m)) o.model = m;
  }
  if (a.redis == "on") o.redis = true;
  if (a.redis == "off") o.redis = false;
  if (!a.retry_mode.empty()) o.ordered_retries = a.retry_mode == "ordered";
  return o;
}

void PrintProgress(uint64_t done, uint64_t total, uint64_t failed, double secs, bool tty) {
  const int width = 30;
  const int filled = total ? static_cast<int>(width * done / total) : width;
  std::fprintf(stderr, "%s[%s%s] %llu/%llu seeds, %llu failing, %.0f s", tty ? "\r" : "",
               std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(),
               static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
               static_cast<unsigned long long>(failed), secs);
  if (done == total || !tty) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

void Run(const SimArgs& a) {
  const auto factory = SimWorkloadFactory(a.workload);
  const uint64_t first = a.seed.value_or(a.first_seed);
  const uint64_t count = a.seed ? 1 : a.seeds;
  std::vector<sim::SimResult> results(count);
  std::atomic<uint64_t> next{0}, done{0}, failing{0};
  std::mutex mu;
  const auto start = std::chrono::steady_clock::now();
  const bool progress = !a.seed && count > 1;
  const bool tty = isatty(2);
  std::exception_ptr failure;  // the first exception of any worker, rethrown after the join
  auto worker = [&] {
    for (uint64_t i; (i = next++) < count;) {
      try {
        results[i] = sim::RunSimulation(OptionsFor(a, first + i), factory);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!failure) failure = std::current_exception();
        next = count;  // the others stop after their current seed
        return;
      }
      if (results[i].report.Total() > 0) failing++;
      const uint64_t d = ++done;
      // On a terminal the bar redraws every 1 %; in a log, one line every 10 %.
      const uint64_t step = std::max<uint64_t>(1, count / (tty ? 100 : 10));
      if (progress && (d == count || d % step == 0)) {
        std::lock_guard<std::mutex> lock(mu);
        PrintProgress(d, count, failing, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), tty);
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned j = 0; j < std::max(1u, a.jobs); ++j) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  sim::Coverage coverage;
  std::map<std::string, int64_t> relay_faults;  // the outbox relay's (chain workload only)
  std::map<std::string, int64_t> per_checker;
  std::map<std::string, std::vector<std::string>> checker_names;
  int64_t deliveries = 0, duplicates = 0, crashes = 0;
  std::vector<const sim::SimResult*> failed;
  for (const sim::SimResult& r : results) {
    coverage.Add(r.coverage);
    for (const auto& [fault, n] : r.relay_faults) relay_faults[fault] += n;
    for (const auto& [checker, v] : r.report.violations) per_checker[checker] += static_cast<int64_t>(v.size());
    deliveries += r.deliveries;
    duplicates += r.duplicate;
    crashes += r.crashes;
    if (r.report.Total() > 0) failed.push_back(&r);
  }
  std::vector<std::string> never_fired;
  for (int f = 0; f < sim::kFaultCount; ++f)
    if (coverage.fired[f] == 0) never_fired.push_back(sim::FaultName(static_cast<sim::Fault>(f)));
  for (const auto& [fault, n] : relay_faults)
    if (n == 0) never_fired.push_back(fault);
  // A forced model or Redis setting leaves some faults nothing to act on (a
  // queue's reordering on Kafka, Redis's outages without Redis): only a run of
  // every kind must fire them all unasked.
  const bool coverage_required = a.require_coverage || (count >= 1000 && a.model.empty() && a.redis.empty());

  if (a.trace && a.seed) {
    for (const std::string& line : results[0].trace) std::cout << line << "\n";
  }
  if (a.json) {
    nlohmann::json j;
    j["seeds"] = count;
    j["first_seed"] = first;
    j["protection"] = a.protection != "off";
    j["seconds"] = secs;
    j["failing_seeds"] = failed.size();
    j["violations"] = per_checker;
    nlohmann::json cov;
    for (int f = 0; f < sim::kFaultCount; ++f) cov[sim::FaultName(static_cast<sim::Fault>(f))] = coverage.fired[f];
    for (const auto& [fault, n] : relay_faults) cov[fault] = n;
    j["coverage"] = cov;
    j["never_fired"] = never_fired;
    j["deliveries"] = deliveries;
    j["duplicates_absorbed"] = duplicates;
    j["crashes"] = crashes;
    if (a.seed) j["digest"] = std::to_string(results[0].digest);
    nlohmann::json fails = nlohmann::json::array();
    for (const sim::SimResult* r : failed) fails.push_back({{"seed", r->seed}, {"replay", sim::ReplayCommand(*r, OptionsFor(a, r->seed))}});
    j["failures"] = fails;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "simulated " << count << " seed(s) from " << first << " in " << secs << " s ("
              << (a.protection == "off" ? "protection OFF" : "protection on") << ", workload " << a.workload << ")\n";
    std::cout << "  deliveries " << deliveries << ", duplicates absorbed " << duplicates << ", crashes " << crashes << "\n";
    std::cout << "checkers (violations):\n";
    for (const auto& [checker, n] : per_checker) std::printf("  %-24s %lld\n", checker.c_str(), static_cast<long long>(n));
    std::cout << "faults fired:\n";
    for (int f = 0; f < sim::kFaultCount; ++f)
      std::printf("  %-32s %lld\n", sim::FaultName(static_cast<sim::Fault>(f)), static_cast<long long>(coverage.fired[f]));
    for (const auto& [fault, n] : relay_faults) std::printf("  %-32s %lld\n", fault.c_str(), static_cast<long long>(n));
    if (a.seed) std::cout << "digest " << results[0].digest << "\n";
    for (size_t i = 0; i < failed.size() && i < 10; ++i) {
      const sim::SimResult& r = *failed[i];
      std::cout << "FAILED seed " << r.seed << " (" << sim::ModelName(r.model)
                << (r.ordered_retries ? ", ordered retries" : "") << (r.redis ? ", redis" : "") << "): ";
      for (const auto& [checker, v] : r.report.violations)
        if (!v.empty()) std::cout << checker << ": " << v[0] << (v.size() > 1 ? " (+" + std::to_string(v.size() - 1) + " more)" : "") << "; ";
      std::cout << "\n  replay: " << sim::ReplayCommand(r, OptionsFor(a, r.seed)) << "\n";
    }
  }
  if (!failed.empty())
    throw CliError(std::to_string(failed.size()) + " of " + std::to_string(count) + " seed(s) violated an invariant", 1);
  if (coverage_required && !never_fired.empty()) {
    std::string names;
    for (const auto& n : never_fired) names += " " + n;
    throw CliError("coverage: these faults never fired over " + std::to_string(count) + " seeds:" + names, 1);
  }
}

}  // namespace

void AddSimCommand(CLI::App& app) {
  auto a = std::make_shared<SimArgs>();
  auto* cmd = app.add_subcommand(
      "sim",
      "Deterministic simulation with fault injection. Each seed picks a delivery model\n"
      "(RabbitMQ-, Kafka- or RocketMQ-like), whether Redis is in front, and which faults\n"
      "fire how often (crashes before/inside/after the transaction and during ack,\n"
      "producer resends, lost acks, rebalances, reordering, slow handlers, commits in doubt,\n"
      "database and Redis outages, key loss, poison and conflicting messages, clock jumps).\n"
      "Checkers: no duplicate effect, nothing lost, balances = flows, no legitimate message\n"
      "blocked, conflicts detected, and on Kafka with ordered retries each key's order.\n"
      "A failing seed prints the command that replays it.\n"
      "Examples:  idem sim --seeds 10000        idem sim --seed 42 --trace\n"
      "           idem sim --protection off      (the checkers must then find violations)\n"
      "           idem sim --workload chain      (the outbox relay, killed between publish and mark)");
  cmd->add_option("--seeds", a->seeds, "How many seeds to run")
      ->capture_default_str()
      ->transform(IntegerIn(1, 100'000'000));
  cmd->add_option("--first-seed", a->first_seed, "The first seed")->capture_default_str()->transform(UnsignedIn(0));
  cmd->add_option("--seed", a->seed, "Run this one seed (replay)")->transform(UnsignedIn(0));
  cmd->add_option("--events", a->events, "Business events per seed")
      ->capture_default_str()
      ->transform(IntegerIn(1, 100'000));
  cmd->add_option("--model", a->model, "Force the delivery model: rabbitmq, kafka, rocketmq")
      ->check(CLI::IsMember({"rabbitmq", "kafka", "rocketmq"}));
  cmd->add_option("--redis", a->redis, "Force the Redis fast filter: on or off")->check(CLI::IsMember({"on", "off"}));
  cmd->add_option("--retry-mode", a->retry_mode,
                  "Kafka model: force ordered (retry in place, the key's later events wait) or retry_topics")
      ->check(CLI::IsMember({"ordered", "retry_topics"}));
  cmd->add_option("--protection", a->protection, "off disables the guard to prove the checkers can fail")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  cmd->add_option("--workload", a->workload, "Which business to simulate: " + SimWorkloadNames())
      ->capture_default_str()
      ->check(CLI::IsMember(SimWorkloads()));
  cmd->add_option("--jobs", a->jobs, "Threads (seeds run in parallel)")
      ->capture_default_str()
      ->transform(IntegerIn(1, 256));
  cmd->add_flag("--json", a->json, "Print the report as JSON");
  cmd->add_flag("--trace", a->trace, "With --seed: print every decision line");
  cmd->add_flag("--require-coverage", a->require_coverage,
                "Fail if any fault never fired (always on from 1,000 seeds, unless --model or --redis is given)");
  cmd->callback([a] { Run(*a); });
}

}  // namespace idem::cli
