#include "harness/bench_goals.h"

#include <cmath>
#include <cstdio>
#include <optional>

#include "harness/report_format.h"

namespace idem::bench {
namespace {

// The goals and their thresholds: the one place they are written down.
constexpr Goal kGoals[] = {
    {GoalId::kSqliteIdemOverCeiling, "SQLite, idem / ceiling", GoalBound::kAtLeast, 0.85, ""},
    {GoalId::kSqliteIdemOverNaive, "SQLite, idem / naive", GoalBound::kAtLeast, 5, " (hold it)"},
    {GoalId::kPostgresIdemOverCeiling, "PostgreSQL (fsync on), idem / ceiling", GoalBound::kAtLeast, 0.85, ""},
    {GoalId::kPostgresIdemOverNaive, "PostgreSQL (fsync on), idem / naive", GoalBound::kAtLeast, 5, ""},
    {GoalId::kPostgresOneWorkerMsgs, "PostgreSQL (fsync on), payments msg/s, one worker", GoalBound::kAtLeast,
     20'000, ""},
    {GoalId::kEmbeddedEndToEnd, "embedded queue (a file of its own), end to end idem / raw", GoalBound::kAtLeast,
     0.8, ""},
    {GoalId::kEmbeddedInStoreEndToEnd, "embedded queue (in the store's file), end to end idem / raw",
     GoalBound::kAtLeast, 0.8, ""},
    {GoalId::kRabbitMqEndToEnd, "RabbitMQ, end to end idem / raw", GoalBound::kAtLeast, 0.8, ""},
    {GoalId::kKafkaMockEndToEnd, "Kafka (in-process mock), end to end idem / raw", GoalBound::kAtLeast, 0.8, ""},
    {GoalId::kKafkaEndToEnd, "Kafka, end to end idem / raw", GoalBound::kAtLeast, 0.8, ""},
    {GoalId::kSoakMemoryGrowth, "memory over the soak, growth", GoalBound::kAtMost, 0.5,
     " MiB per million messages (flat)"},
};

// What a goal's row shows; nullopt when its inputs were not measured.
struct Figure {
  bool ok = false;  // false: a run it needs failed
  double value = 0;
  std::string shown;
};

const StoreSummary* Store(const BenchOutcome& b, const std::string& label) {
  for (const StoreSummary& s : b.summaries)
    if (s.target.label == label) return &s;
  return nullptr;
}

// PostgreSQL counts only with every commit flushed: with fsync off a commit
// costs nothing and the figures answer another question.
const StoreSummary* PostgresFsyncOn(const BenchOutcome& b) {
  const StoreSummary* s = Store(b, "postgres");
  return s && s->target.durability.find("fsync=on") != std::string::npos ? s : nullptr;
}

std::optional<Figure> StoreRatio(const BenchOutcome& b, const StoreSummary* s, Variant over) {
  if (!s || !FindRun(b, s->target.label, Role::kCompare, Variant::kIdem) ||
      !FindRun(b, s->target.label, Role::kCompare, over))
    return std::nullopt;
  const double ratio = over == Variant::kNaive ? s->idem_over_naive : s->idem_over_ceiling;
  const double other = over == Variant::kNaive ? s->naive_per_s : s->ceiling_per_s;
  // More than one pair: say that the figures are medians (naive runs once), and how far the pairs spread.
  std::string pairs;
  if (s->compare_pairs > 1 && over == Variant::kCeiling)
    pairs = "; medians of " + std::to_string(s->compare_pairs) + " pairs, " + Fixed(s->idem_over_ceiling_min, 2) +
            "–" + Fixed(s->idem_over_ceiling_max, 2);
  if (s->compare_pairs > 1 && over == Variant::kNaive)
    pairs = "; idem the median of " + std::to_string(s->compare_pairs) + " runs";
  return Figure{ratio > 0, ratio,
                Fixed(ratio, 2) + " (idem " + Rate(s->idem_per_s) + ", " + VariantName(over) + " " + Rate(other) +
                    " msg/s" + pairs + ")"};
}

std::optional<Figure> OneWorker(const BenchOutcome& b) {
  const StoreSummary* s = PostgresFsyncOn(b);
  if (!s || !FindRun(b, s->target.label, Role::kCompare, Variant::kIdem)) return std::nullopt;
  std::string shown = Rate(s->idem_per_s) + " (idem B=" + Int(static_cast<int64_t>(b.options.batch_size)) +
                      (s->compare_pairs > 1 ? ", median of " + std::to_string(s->compare_pairs) + " runs" : "") + ")";
  if (const double big = SweepPoint(b, s->target.label, Variant::kIdem, 1000); big > 0 && b.options.batch_size != 1000)
    shown += "; B=1,000: " + Rate(big);
  return Figure{s->idem_per_s > 0, s->idem_per_s, shown};
}

std::optional<Figure> EndToEnd(const BenchOutcome& b, const char* broker) {
  for (const EndToEndSummary& e : b.end_to_end) {
    if (e.broker.label != broker) continue;
    return Figure{e.pairs > 0, e.ratio,
                  Fixed(e.ratio, 2) + " (" + Fixed(e.ratio_min, 2) + "–" + Fixed(e.ratio_max, 2) + "; idem " +
                      Rate(e.idem_per_s) + ", raw " + Rate(e.raw_per_s) + " msg/s)"};
  }
  return std::nullopt;
}

std::optional<Figure> SoakGrowth(const BenchOutcome& b) {
  const RunResult* soak = SoakRun(b);
  if (!soak) return std::nullopt;
  const std::optional<double> per_million = SoakGrowthMiBPerMillion(*soak);
  if (!soak->ok || !per_million) return Figure{false, 0, ""};
  const auto& [first_at, first_kb] = soak->rss_kb_at.front();
  const auto& [last_at, last_kb] = soak->rss_kb_at.back();
  return Figure{true, *per_million,
                Fixed(*per_million, 2) + " MiB per million (" + MiB(first_kb) + " → " + MiB(last_kb) + " over " +
                    Int(last_at - first_at) + " messages)"};
}

std::optional<Figure> Measure(const BenchOutcome& b, GoalId id) {
  switch (id) {
    case GoalId::kSqliteIdemOverCeiling: return StoreRatio(b, Store(b, "sqlite"), Variant::kCeiling);
    case GoalId::kSqliteIdemOverNaive: return StoreRatio(b, Store(b, "sqlite"), Variant::kNaive);
    case GoalId::kPostgresIdemOverCeiling: return StoreRatio(b, PostgresFsyncOn(b), Variant::kCeiling);
    case GoalId::kPostgresIdemOverNaive: return StoreRatio(b, PostgresFsyncOn(b), Variant::kNaive);
    case GoalId::kPostgresOneWorkerMsgs: return OneWorker(b);
    case GoalId::kEmbeddedEndToEnd: return EndToEnd(b, "embedded");
    case GoalId::kEmbeddedInStoreEndToEnd: return EndToEnd(b, "embedded-in-store");
    case GoalId::kRabbitMqEndToEnd: return EndToEnd(b, "rabbitmq");
    case GoalId::kKafkaMockEndToEnd: return EndToEnd(b, "kafka-mock");
    case GoalId::kKafkaEndToEnd: return EndToEnd(b, "kafka");
    case GoalId::kSoakMemoryGrowth: return SoakGrowth(b);
  }
  return std::nullopt;
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

std::vector<GoalRow> EvaluateGoals(const BenchOutcome& b) {
  std::vector<GoalRow> rows;
  for (const Goal& g : kGoals) {
    const std::optional<Figure> f = Measure(b, g.id);
    if (!f) continue;
    GoalRow row{g, f->ok, f->value, f->ok ? f->shown : "no figure (a run failed)", false};
    row.met = f->ok && (g.bound == GoalBound::kAtLeast ? f->value >= g.threshold : f->value <= g.threshold);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace idem::bench
