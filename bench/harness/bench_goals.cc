#include "harness/bench_goals.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "harness/report_format.h"

namespace idem::bench {
namespace {

// The goals and their thresholds: the one place they are written down.
constexpr Goal kGoals[] = {
    {GoalId::kSqliteIdemOverCeiling, "SQLite, idem / ceiling", GoalBound::kAtLeast, 0.9, ""},
    {GoalId::kPostgresIdemOverCeiling, "PostgreSQL, idem / ceiling", GoalBound::kAtLeast, 0.9, ""},
    {GoalId::kMariaDbIdemOverCeiling, "MariaDB, idem / ceiling", GoalBound::kAtLeast, 0.9, ""},
    {GoalId::kIdemOverNaiveEveryStore, "idem / naive, every store", GoalBound::kAtLeast, 5, " (hold)"},
    {GoalId::kPostgresOneWorkerMsgs, "PostgreSQL payments msg/s, one worker, B=100", GoalBound::kAtLeast, 20'000, ""},
    {GoalId::kPostgresFourWorkers, "PostgreSQL, 4 workers / 1", GoalBound::kAtLeast, 2.5, " ×"},
    {GoalId::kMariaDbFourWorkers, "MariaDB, 4 workers / 1", GoalBound::kAtLeast, 2.5, " ×, 0 reruns"},
    {GoalId::kEndToEndEachBroker, "end to end on a broker, idem / ceiling (same effects)", GoalBound::kAtLeast, 0.9,
     " on each"},
    {GoalId::kServiceOverLibrary, "`idem run` end to end / the library's pipeline on the same queue and store",
     GoalBound::kAtLeast, 0.9, ""},
    {GoalId::kSoakMemoryGrowth, "memory over the soak", GoalBound::kAtMost, 0.5,
     " MiB per million messages (flat, hold)"},
};

// What a goal's row shows.
struct Figure {
  bool measured = false;  // false: `shown` says what the run lacked
  bool ok = false;        // false: a run it needs failed
  double value = 0;
  std::string shown;
  bool extra_ok = true;   // a condition beside the bound (MariaDB's 0 reruns)
};

Figure NotMeasured(const std::string& why) { return Figure{false, false, 0, why}; }

Figure Failed(const std::string& what) { return Figure{true, false, 0, what}; }

const char* kServerFlushNote = "the goals are set with every commit flushed";

bool IsMariaDb(const StoreTarget& t) { return t.url.rfind("mysql://", 0) == 0 || t.url.rfind("mariadb://", 0) == 0; }
bool IsPostgres(const StoreTarget& t) {
  return t.url.rfind("postgresql://", 0) == 0 || t.url.rfind("postgres://", 0) == 0;
}

// A store of this kind that flushes every commit, or why none counts.
struct StoreFound {
  const StoreSummary* summary = nullptr;
  std::string why_not;
};

StoreFound FindStore(const BenchOutcome& b, const char* kind) {
  const std::string k = kind;
  for (const StoreSummary& s : b.summaries) {
    const StoreTarget& t = s.target;
    if (k == "sqlite" && t.url == "sqlite") return {&s, ""};
    // With fsync off a commit costs nothing and the figures answer another question.
    if (k == "postgres" && IsPostgres(t))
      return t.durability.find("fsync=on") != std::string::npos
                 ? StoreFound{&s, ""}
                 : StoreFound{nullptr, "not counted: that server does not flush every commit (" + t.durability +
                                           "); " + kServerFlushNote};
    if (k == "mariadb" && IsMariaDb(t))
      return t.durability.find("innodb_flush_log_at_trx_commit=1") != std::string::npos
                 ? StoreFound{&s, ""}
                 : StoreFound{nullptr, "not counted: that server does not flush every commit (" + t.durability +
                                           "); " + kServerFlushNote};
  }
  if (k == "postgres") return {nullptr, "no PostgreSQL --store"};
  if (k == "mariadb") return {nullptr, "no MySQL/MariaDB --store"};
  return {nullptr, "no SQLite runs"};
}

bool HasCompareRuns(const BenchOutcome& b, const StoreSummary& s) {
  return FindRun(b, s.target.label, Role::kCompare, Variant::kIdem) &&
         FindRun(b, s.target.label, Role::kCompare, Variant::kCeiling);
}

std::string Range(double lo, double hi) { return Fixed(lo, 2) + "–" + Fixed(hi, 2); }

Figure OverCeiling(const BenchOutcome& b, const char* kind) {
  const StoreFound f = FindStore(b, kind);
  if (!f.summary) return NotMeasured(f.why_not);
  const StoreSummary& s = *f.summary;
  if (!HasCompareRuns(b, s)) return NotMeasured("its compare runs were not selected");
  if (s.idem_over_ceiling <= 0) return Failed("no figure (a run failed)");
  std::string shown = Fixed(s.idem_over_ceiling, 2) + " (idem " + Rate(s.idem_per_s) + ", ceiling " +
                      Rate(s.ceiling_per_s) + " msg/s";
  if (s.compare_pairs > 1)
    shown += "; medians of " + std::to_string(s.compare_pairs) + " pairs, " +
             Range(s.idem_over_ceiling_min, s.idem_over_ceiling_max);
  return Figure{true, true, s.idem_over_ceiling, shown + ")"};
}

Figure OverNaiveEveryStore(const BenchOutcome& b) {
  std::string shown;
  double lowest = 0;
  bool any = false, all_ok = true;
  for (const char* kind : {"sqlite", "postgres", "mariadb"}) {
    const StoreFound f = FindStore(b, kind);
    if (!f.summary || !FindRun(b, f.summary->target.label, Role::kCompare, Variant::kNaive) ||
        !FindRun(b, f.summary->target.label, Role::kCompare, Variant::kIdem))
      continue;
    const double r = f.summary->idem_over_naive;
    shown += std::string(shown.empty() ? "" : ", ") + (r > 0 ? Fixed(r, 2) : "a run failed") + " " +
             (std::string(kind) == "sqlite" ? "SQLite" : std::string(kind) == "postgres" ? "PostgreSQL" : "MariaDB");
    all_ok = all_ok && r > 0;
    lowest = any ? std::min(lowest, r) : r;
    any = true;
  }
  if (!any) return NotMeasured("no naive run");
  return Figure{true, all_ok, lowest, shown + " (idem B=" + std::to_string(b.options.batch_size) +
                                          " over one message per transaction)"};
}

Figure OneWorker(const BenchOutcome& b) {
  const StoreFound f = FindStore(b, "postgres");
  if (!f.summary) return NotMeasured(f.why_not);
  const std::string& label = f.summary->target.label;
  const bool at_100 = b.options.batch_size == 100;
  if (!FindRun(b, label, at_100 ? Role::kCompare : Role::kSweep, Variant::kIdem, 100))
    return NotMeasured("no idem run at B=100");
  // At the run's own batch size the compare runs' median; otherwise the sweep's point at 100.
  const double rate = at_100 ? f.summary->idem_per_s : SweepPoint(b, label, Variant::kIdem, 100);
  if (rate <= 0) return Failed("no figure (a run failed)");
  std::string shown = Rate(rate) + " (idem B=100" +
                      (at_100 && f.summary->compare_pairs > 1
                           ? ", median of " + std::to_string(f.summary->compare_pairs) + " runs"
                           : std::string()) +
                      ")";
  if (const double big = SweepPoint(b, label, Variant::kIdem, 1000); big > 0) shown += "; B=1,000: " + Rate(big);
  return Figure{true, true, rate, shown};
}

Figure FourWorkers(const BenchOutcome& b, const char* kind, bool no_reruns) {
  const StoreFound f = FindStore(b, kind);
  if (!f.summary) return NotMeasured(f.why_not);
  const WorkersResult *one = nullptr, *four = nullptr;
  for (const WorkersResult& w : b.workers) {
    if (w.spec.store_label != f.summary->target.label) continue;
    if (w.spec.workers == 1) one = &w;
    if (w.spec.workers == 4) four = &w;
  }
  if (!one || !four) return NotMeasured("no runs with 1 and 4 workers");
  const double scaling = ScalingVsOneWorker(b, *four);
  if (scaling <= 0) return Failed("no figure (a run failed)");
  Figure fig{true, true, scaling,
             Fixed(scaling, 2) + " × (" + Rate(four->msgs_per_s) + " against " + Rate(one->msgs_per_s) +
                 " msg/s); " + Int(four->transaction_retries) + " transaction reruns at 4 workers"};
  if (no_reruns) fig.extra_ok = four->transaction_retries == 0;
  return fig;
}

// A row over several brokers or queues, judged by the lowest figure: each one's
// figure in turn, or that a run of it failed (the row is then missed).
class Lowest {
 public:
  explicit Lowest(const char* separator) : separator_(separator) {}
  void Add(const std::string& label, bool ran, double value, const std::string& text) {
    fig_.shown += (fig_.shown.empty() ? "" : separator_) + label + " " + (ran ? text : "a run failed");
    fig_.ok = fig_.ok && ran;
    if (ran) fig_.value = any_ ? std::min(fig_.value, value) : value;
    any_ = any_ || ran;
  }
  Figure& figure() { return fig_; }

 private:
  const char* separator_;
  Figure fig_{true, true, 0, ""};
  bool any_ = false;
};

Figure EndToEndEachBroker(const BenchOutcome& b) {
  if (b.end_to_end.empty()) return NotMeasured("no end-to-end runs");
  Lowest row(", ");
  for (const EndToEndSummary& e : b.end_to_end)
    row.Add(e.broker.label, e.pairs > 0, e.over_ceiling,
            Fixed(e.over_ceiling, 2) + " (" + Range(e.over_ceiling_min, e.over_ceiling_max) + ")");
  std::string missing;
  auto has = [&](const char* prefix) {
    return std::any_of(b.end_to_end.begin(), b.end_to_end.end(),
                       [&](const EndToEndSummary& e) { return e.broker.label.rfind(prefix, 0) == 0; });
  };
  if (!has("rabbitmq")) missing += "RabbitMQ (--rabbitmq-url)";
  if (!has("kafka")) missing += std::string(missing.empty() ? "" : ", ") + "Kafka (--kafka-url)";
  if (!missing.empty()) row.figure().shown += "; not measured: " + missing;
  return row.figure();
}

Figure ServiceOverLibrary(const BenchOutcome& b) {
  if (b.service.empty()) return NotMeasured("no `idem run` runs");
  Lowest row("; ");
  for (const ServiceSummary& s : b.service)
    row.Add(s.broker.label, s.pairs > 0, s.ratio,
            Fixed(s.ratio, 2) + " (" + Range(s.ratio_min, s.ratio_max) + "; idem run " + Rate(s.service_per_s) +
                ", library " + Rate(s.library_per_s) + " msg/s)");
  return row.figure();
}

Figure SoakGrowth(const BenchOutcome& b) {
  const RunResult* soak = SoakRun(b);
  if (!soak) return NotMeasured("no soak run");
  const std::optional<double> per_million = SoakGrowthMiBPerMillion(*soak);
  if (!soak->ok || !per_million) return Failed("no figure (a run failed)");
  const auto& [first_at, first_kb] = soak->rss_kb_at.front();
  const auto& [last_at, last_kb] = soak->rss_kb_at.back();
  return Figure{true, true, *per_million,
                Fixed(*per_million, 2) + " MiB per million (" + MiB(first_kb) + " → " + MiB(last_kb) + " over " +
                    Int(last_at - first_at) + " messages)"};
}

Figure Measure(const BenchOutcome& b, GoalId id) {
  switch (id) {
    case GoalId::kSqliteIdemOverCeiling: return OverCeiling(b, "sqlite");
    case GoalId::kPostgresIdemOverCeiling: return OverCeiling(b, "postgres");
    case GoalId::kMariaDbIdemOverCeiling: return OverCeiling(b, "mariadb");
    case GoalId::kIdemOverNaiveEveryStore: return OverNaiveEveryStore(b);
    case GoalId::kPostgresOneWorkerMsgs: return OneWorker(b);
    case GoalId::kPostgresFourWorkers: return FourWorkers(b, "postgres", false);
    case GoalId::kMariaDbFourWorkers: return FourWorkers(b, "mariadb", true);
    case GoalId::kEndToEndEachBroker: return EndToEndEachBroker(b);
    case GoalId::kServiceOverLibrary: return ServiceOverLibrary(b);
    case GoalId::kSoakMemoryGrowth: return SoakGrowth(b);
  }
  return NotMeasured("");
}

}  // namespace

const Goal& GoalOf(GoalId id) {
  for (const Goal& g : kGoals)
    if (g.id == id) return g;
  return kGoals[0];  // every GoalId has a row above
}

std::string BoundText(const Goal& goal) {
  const bool whole = goal.threshold >= 1000 && std::floor(goal.threshold) == goal.threshold;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", goal.threshold);
  return std::string(goal.bound == GoalBound::kAtLeast ? "≥ " : "≤ ") +
         (whole ? Int(static_cast<int64_t>(goal.threshold)) : std::string(buf)) + goal.note;
}

const char* GoalStateName(GoalState state) {
  switch (state) {
    case GoalState::kMet: return "met";
    case GoalState::kMissed: return "missed";
    case GoalState::kNotMeasured: return "not measured in this run";
  }
  return "?";
}

std::vector<GoalRow> EvaluateGoals(const BenchOutcome& b) {
  std::vector<GoalRow> rows;
  for (const Goal& g : kGoals) {
    const Figure f = Measure(b, g.id);
    GoalRow row{g, GoalState::kNotMeasured, f.measured && f.ok, f.value, f.shown};
    if (f.measured) {
      const bool within = g.bound == GoalBound::kAtLeast ? f.value >= g.threshold : f.value <= g.threshold;
      row.state = f.ok && f.extra_ok && within ? GoalState::kMet : GoalState::kMissed;
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace idem::bench
