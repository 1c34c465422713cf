#include "harness/bench_plan.h"

#include <algorithm>

namespace idem::bench {
namespace {

RunSpec Base(const BenchOptions& o, const StoreTarget& store, Role role, Variant v, size_t batch) {
  RunSpec s;
  s.role = role;
  s.store = store.url;
  s.store_label = store.label;
  s.variant = v;
  s.batch_size = v == Variant::kNaive ? 1 : batch;
  s.messages = o.messages;
  s.max_seconds = o.max_seconds;
  s.duplicate_ratio = o.duplicate_ratio;
  s.seed = o.seed;
  s.work_dir = o.work_dir;
  return s;
}

std::string NameOf(const RunSpec& s) {
  std::string name = s.store_label + (s.redis_url.empty() || s.variant == Variant::kCeiling ? "" : "+redis") + " " +
                     VariantName(s.variant) + " B=" + std::to_string(s.batch_size) + " " + KeyOrderName(s.keys);
  if (s.history > 0) name += " history=" + std::to_string(s.history);
  if (s.role == Role::kNoCopies) name += " no-copies";
  if (s.phase == Phase::kPaced) name += " paced@" + std::to_string(static_cast<int64_t>(s.rate_per_s)) + "/s";
  if (s.role == Role::kSoak) name += " soak";
  if (s.role == Role::kFilter)
    name += " copies=" + std::to_string(static_cast<int>(s.duplicate_ratio * 100 + 0.5)) + "% #" +
            std::to_string(s.repeat);
  if (s.role == Role::kCompare && s.repeat > 0) name += " #" + std::to_string(s.repeat);
  if (s.role == Role::kService)
    name = s.broker_label + " " + (s.variant == Variant::kService ? "idem-run" : "library") +
           (s.log_decisions ? "" : " no-decision-log") + " B=" + std::to_string(s.batch_size) + " #" +
           std::to_string(s.repeat);
  if (s.role == Role::kEndToEnd)
    name = s.broker_label + " end-to-end " + VariantName(s.variant) + " B=" + std::to_string(s.batch_size) + " #" +
           std::to_string(s.repeat);
  return name;
}

RunSpec Named(RunSpec s) {
  s.name = NameOf(s);
  return s;
}

}  // namespace

void BenchOptions::ApplyModeDefaults() {
  if (messages <= 0) messages = quick ? 15'000 : 200'000;
  if (max_seconds <= 0) max_seconds = quick ? 2.0 : 15.0;
  if (history < 0) history = quick ? 20'000 : 1'000'000;
  // Seeding a million payments into a server takes minutes of the run's budget;
  // a hundred thousand already puts every claim in a three-level index.
  if (server_history < 0) server_history = std::min<int64_t>(history, 100'000);
  if (paced_seconds <= 0) paced_seconds = quick ? 1.5 : 5.0;
  if (soak_messages < 0) soak_messages = quick ? 0 : 1'000'000;
  if (micro_min_time_s == 0) micro_min_time_s = quick ? 0.01 : 0.2;
  // Long enough that a run lasts seconds, not a few batches: the ratio of two
  // runs of under a second swings with whatever else the machine does.
  if (e2e_messages <= 0) e2e_messages = quick ? 3'000 : 60'000;
  if (e2e_pairs == 0) e2e_pairs = quick ? 1 : 3;
  // librdkafka's mock cluster delivers about a thousand messages a second:
  // a few seconds' worth, not a minute's.
  if (e2e_kafka_messages <= 0) e2e_kafka_messages = quick ? 3'000 : 6'000;
  if (filter_pairs <= 0) filter_pairs = quick ? 1 : 2;
  // A server's state drifts between runs (vacuum of the last run's rows,
  // checkpoints): three pairs let the median step over one disturbed run.
  if (compare_pairs <= 0) compare_pairs = quick ? 1 : 3;
}

std::vector<BrokerTarget> BrokerTargets(const BenchOptions& o) {
  if (o.e2e_pairs < 0) return {};
  std::vector<BrokerTarget> out{{"embedded", "queue"}, {"embedded-in-store", "queue-in-store"}};
  if (!o.rabbitmq_url.empty()) out.push_back({"rabbitmq", o.rabbitmq_url});
  if (!o.kafka_url.empty())
    out.push_back({o.kafka_url.rfind("kafka://mock", 0) == 0 ? "kafka-mock" : "kafka", o.kafka_url});
  return out;
}

int64_t EndToEndMessages(const BenchOptions& o, const BrokerTarget& broker) {
  if (broker.label.rfind("kafka", 0) == 0) return std::min(o.e2e_messages, o.e2e_kafka_messages);
  return o.e2e_messages;
}

std::vector<RunSpec> PlanEndToEndRuns(const BenchOptions& o, const BrokerTarget& broker) {
  std::vector<RunSpec> runs;
  const StoreTarget sqlite{"sqlite", "sqlite", ""};
  for (int pair = 1; pair <= o.e2e_pairs; ++pair)
    for (Variant v : {Variant::kRaw, Variant::kCeiling, Variant::kIdem}) {
      RunSpec s = Base(o, sqlite, Role::kEndToEnd, v, o.batch_size);
      s.messages = EndToEndMessages(o, broker);
      s.max_seconds = 0;  // every message comes back: the raw loop and idem do the same work
      s.broker = broker.broker;
      s.broker_label = broker.label;
      s.repeat = pair;
      s.rss_samples = 0;
      runs.push_back(Named(s));
    }
  return runs;
}

bool PartSelected(const BenchOptions& o, const std::string& part) {
  return o.parts.empty() || std::find(o.parts.begin(), o.parts.end(), part) != o.parts.end();
}

std::string PartList() {
  std::string out;
  for (const char* p : kParts) out += (out.empty() ? "" : ", ") + std::string(p);
  return out;
}

std::vector<BrokerTarget> ServiceBrokerTargets(const BenchOptions& o) {
  if (o.e2e_pairs < 0 || o.idem_path.empty()) return {};
  return {{"embedded-in-store", "queue-in-store"}, {"embedded", "queue"}};
}

std::vector<RunSpec> PlanServiceRuns(const BenchOptions& o, const BrokerTarget& broker) {
  std::vector<RunSpec> runs;
  const StoreTarget sqlite{"sqlite", "sqlite", ""};
  // On the queue in the store's file, also `idem run` without its log line
  // per message: how much of the difference that line is.
  const bool quiet_too = broker.broker == "queue-in-store";
  for (int pair = 1; pair <= o.e2e_pairs; ++pair)
    for (int i = 0; i < (quiet_too ? 3 : 2); ++i) {
      RunSpec s = Base(o, sqlite, Role::kService, i == 0 ? Variant::kIdem : Variant::kService, o.batch_size);
      s.messages = o.e2e_messages;
      s.max_seconds = 0;  // every side drains the queue
      s.broker = broker.broker;
      s.broker_label = broker.label;
      s.idem_path = o.idem_path;
      s.log_decisions = i != 2;
      s.repeat = pair;
      s.rss_samples = 0;
      runs.push_back(Named(s));
    }
  return runs;
}

std::vector<StoreTarget> StoreTargets(const BenchOptions& o) {
  std::vector<StoreTarget> out{{"sqlite", "sqlite", ""}};
  for (const std::string& url : o.store_urls) {
    std::string label = url.substr(0, url.find(':'));
    if (label == "postgresql") label = "postgres";
    // Tables and ratios are keyed by label, so two targets never share one.
    const std::string base = label;
    for (int n = 2;; ++n) {
      bool taken = false;
      for (const StoreTarget& t : out) taken = taken || t.label == label;
      if (!taken) break;
      label = base + "#" + std::to_string(n);
    }
    out.push_back({label, url, ""});
  }
  return out;
}

bool IsServerStore(const StoreTarget& store) {
  for (const char* scheme : {"postgresql://", "postgres://", "mysql://", "mariadb://"})
    if (store.url.rfind(scheme, 0) == 0) return true;
  return false;
}

std::vector<RunSpec> PlanThroughputRuns(const BenchOptions& o, const StoreTarget& store) {
  const size_t b = o.batch_size;
  std::vector<RunSpec> runs;
  for (int pair = 1; pair <= o.compare_pairs; ++pair)
    for (Variant v : {Variant::kIdem, Variant::kCeiling}) {
      RunSpec s = Base(o, store, Role::kCompare, v, b);
      s.repeat = pair;
      runs.push_back(Named(s));
    }
  // 5-20 × slower than idem and far from its goal: one run says enough.
  runs.push_back(Named(Base(o, store, Role::kCompare, Variant::kNaive, 1)));
  for (size_t sweep : o.sweep) {
    if (sweep == b) continue;  // the compare runs are the sweep's point at B
    runs.push_back(Named(Base(o, store, Role::kSweep, Variant::kIdem, sweep)));
    runs.push_back(Named(Base(o, store, Role::kSweep, Variant::kCeiling, sweep)));
  }
  for (Variant v : {Variant::kIdem, Variant::kCeiling}) {
    RunSpec s = Base(o, store, Role::kRandomKeys, v, b);
    s.keys = KeyOrder::kRandom;
    runs.push_back(Named(s));
  }
  for (Variant v : {Variant::kIdem, Variant::kCeiling}) {
    RunSpec s = Base(o, store, Role::kNoCopies, v, b);
    s.duplicate_ratio = 0;
    runs.push_back(Named(s));
  }
  const int64_t history = IsServerStore(store) ? o.server_history : o.history;
  if (history > 0) {
    for (Variant v : {Variant::kIdem, Variant::kCeiling}) {
      RunSpec s = Base(o, store, Role::kHistory, v, b);
      s.history = history;
      runs.push_back(Named(s));
    }
  }
  return runs;
}

std::vector<RunSpec> PlanFilterRuns(const BenchOptions& o, const StoreTarget& store) {
  std::vector<RunSpec> runs;
  if (o.redis_url.empty() || !IsServerStore(store)) return runs;
  for (double copies : {o.duplicate_ratio, kStormDuplicates})
    for (int pair = 1; pair <= o.filter_pairs; ++pair)
      for (const std::string& redis : {std::string(), o.redis_url}) {
        RunSpec s = Base(o, store, Role::kFilter, Variant::kIdem, o.batch_size);
        // Half the cap of a throughput run: on a shared machine alternated
        // pairs of shorter runs say more than one long run each way.
        s.max_seconds = o.max_seconds / 2;
        s.redis_url = redis;
        s.duplicate_ratio = copies;
        s.repeat = pair;
        s.rss_samples = 0;
        runs.push_back(Named(s));
      }
  return runs;
}

std::vector<RunSpec> PlanLatencyRuns(const BenchOptions& o, const StoreTarget& store, double common_rate,
                                     double high_rate) {
  std::vector<RunSpec> runs;
  auto paced = [&](Role role, Variant v, double rate) {
    RunSpec s = Base(o, store, role, v, o.batch_size);
    s.phase = Phase::kPaced;
    s.rate_per_s = rate;
    s.paced_seconds = o.paced_seconds;
    s.rss_samples = 0;
    runs.push_back(Named(s));
  };
  if (common_rate > 0)
    for (Variant v : {Variant::kIdem, Variant::kNaive, Variant::kCeiling}) paced(Role::kLatencyCommon, v, common_rate);
  if (high_rate > common_rate)
    for (Variant v : {Variant::kIdem, Variant::kCeiling}) paced(Role::kLatencyHigh, v, high_rate);
  return runs;
}

RunSpec PlanSoakRun(const BenchOptions& o, const StoreTarget& store) {
  RunSpec s = Base(o, store, Role::kSoak, Variant::kIdem, o.batch_size);
  s.messages = o.soak_messages;
  s.max_seconds = 0;  // the point is the message count
  s.rss_samples = 20;
  return Named(s);
}

}  // namespace idem::bench
