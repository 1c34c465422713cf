// Each variant, run for real on a small workload, comes out exactly once and
// reports its figures; a store that cannot be opened is an error, not a number.
#include "harness/run_one.h"

#include <gtest/gtest.h>

#include "testing/test_util.h"

namespace idem::bench {
namespace {

RunSpec Small(const std::string& dir, Variant v) {
  RunSpec s;
  s.name = std::string("test ") + VariantName(v);
  s.variant = v;
  s.batch_size = 50;
  s.messages = 1'500;
  s.work_dir = dir;
  return s;
}

void ExpectExactlyOnce(const RunResult& r) {
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.check_failures.empty()) << (r.check_failures.empty() ? "" : r.check_failures.front());
  EXPECT_GE(r.checks_passed.size(), 10u);
}

TEST(RunOne, EachVariantIsExactlyOnce) {
  testing::TempDir dir;
  for (Variant v : {Variant::kIdem, Variant::kNaive, Variant::kCeiling}) {
    SCOPED_TRACE(VariantName(v));
    RunSpec spec = Small(dir.path(), v);
    if (v == Variant::kNaive) spec.messages = 300;  // one fsync a message
    RunResult r = RunOne(spec);
    ExpectExactlyOnce(r);
    EXPECT_EQ(r.messages, spec.messages);
    EXPECT_GT(r.unique, 0);
    EXPECT_LT(r.unique, r.messages);  // there were copies
    EXPECT_EQ(r.business_runs, r.unique);
    EXPECT_GT(r.msgs_per_s, 0);
    EXPECT_GT(r.peak_rss_kb, 0);
    EXPECT_EQ(r.batches, v == Variant::kNaive ? spec.messages : (spec.messages + 49) / 50);
  }
}

TEST(RunOne, RandomKeysAndAHistory) {
  testing::TempDir dir;
  RunSpec spec = Small(dir.path(), Variant::kIdem);
  spec.keys = KeyOrder::kRandom;
  spec.history = 700;
  ExpectExactlyOnce(RunOne(spec));
  spec.variant = Variant::kCeiling;
  ExpectExactlyOnce(RunOne(spec));
}

TEST(RunOne, ATimeCapStopsAtABatchBoundaryAndStillChecks) {
  testing::TempDir dir;
  RunSpec spec = Small(dir.path(), Variant::kNaive);
  spec.messages = 1'000'000;
  spec.max_seconds = 0.2;
  RunResult r = RunOne(spec);
  ExpectExactlyOnce(r);
  EXPECT_LT(r.messages, spec.messages);
}

TEST(RunOne, PacedRunRecordsALatencyPerMessage) {
  testing::TempDir dir;
  RunSpec spec = Small(dir.path(), Variant::kIdem);
  spec.phase = Phase::kPaced;
  spec.rate_per_s = 400;
  spec.paced_seconds = 0.5;
  RunResult r = RunOne(spec);
  ExpectExactlyOnce(r);
  EXPECT_EQ(r.messages, 200);
  EXPECT_EQ(r.latency.samples, 200);
  EXPECT_GT(r.latency.p50_ms, 0);
  EXPECT_LE(r.latency.p50_ms, r.latency.p99_ms);
  EXPECT_LE(r.latency.p99_ms, r.latency.max_ms);
}

TEST(RunOne, AStoreThatCannotOpenIsAnError) {
  testing::TempDir dir;
  RunSpec spec = Small(dir.path(), Variant::kIdem);
  spec.store = "nosuchscheme://somewhere";
  RunResult r = RunOne(spec);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("cannot open the store"), std::string::npos) << r.error;
}

TEST(SummariseLatencies, NearestRankPercentiles) {
  std::vector<int64_t> us;
  for (int i = 1; i <= 100; ++i) us.push_back(i * 1000);  // 1 … 100 ms
  LatencyStats s = SummariseLatencies(us);
  EXPECT_EQ(s.samples, 100);
  EXPECT_DOUBLE_EQ(s.p50_ms, 50);
  EXPECT_DOUBLE_EQ(s.p99_ms, 99);
  EXPECT_DOUBLE_EQ(s.max_ms, 100);
  EXPECT_DOUBLE_EQ(s.mean_ms, 50.5);
  EXPECT_EQ(SummariseLatencies({}).samples, 0);
}

}  // namespace
}  // namespace idem::bench
