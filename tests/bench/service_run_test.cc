// `idem run` against the library's pipeline: the generated configuration is one
// `idem run` accepts, each side drains the same kind of queue into the store
// exactly once (checked from the database), and `--part idem-run` runs that
// part alone. No timing is asserted.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "harness/run_service_end_to_end.h"
#include "testing/test_util.h"

namespace idem::bench {
namespace {

using idem::testing::ProcessResult;
using idem::testing::RunProcess;
using idem::testing::TempDir;

bool Has(const std::vector<std::string>& checks, const std::string& start) {
  for (const std::string& c : checks)
    if (c.rfind(start, 0) == 0) return true;
  return false;
}

RunSpec Spec(const TempDir& dir, Variant v, const std::string& broker) {
  RunSpec s;
  s.name = broker + " " + VariantName(v);
  s.role = Role::kService;
  s.variant = v;
  s.broker = broker;
  s.broker_label = broker;
  s.messages = 600;
  s.work_dir = dir.path();
  s.idem_path = IDEM_CLI_PATH;
  return s;
}

TEST(ServiceRun, TheGeneratedConfigurationIsOneIdemRunAccepts) {
  TempDir dir;
  const std::string file = dir.File("run.toml");
  std::ofstream(file) << ServiceRunConfig("queue:" + dir.File("q.db"), "sqlite:" + dir.File("s.db"), "g1", 100);
  ProcessResult p = RunProcess({IDEM_CLI_PATH, "run", "--check", file});
  EXPECT_EQ(p.exit_code, 0) << p.out << p.err;
  EXPECT_NE(p.out.find("1 consumer group(s), 1 worker(s)"), std::string::npos) << p.out;

  const std::string quiet = ServiceRunConfig("queue:" + dir.File("q.db"), "sqlite:" + dir.File("s.db"), "g1", 100,
                                             /*log_decisions=*/false);
  EXPECT_NE(quiet.find("log_decisions = false"), std::string::npos) << quiet;
  std::ofstream(file) << quiet;
  EXPECT_EQ(RunProcess({IDEM_CLI_PATH, "run", "--check", file}).exit_code, 0) << quiet;
}

TEST(ServiceRun, TheLibraryAndIdemRunEachApplyEveryPaymentOnceFromTheQueueInTheStore) {
  TempDir dir;
  for (Variant v : {Variant::kIdem, Variant::kService}) {
    const RunResult r = RunServiceEndToEnd(Spec(dir, v, "queue-in-store"));
    EXPECT_TRUE(r.ok) << VariantName(v) << ": " << r.error;
    EXPECT_TRUE(r.check_failures.empty()) << VariantName(v) << ": " << r.check_failures.front();
    EXPECT_GT(r.unique, 0);
    EXPECT_TRUE(Has(r.checks_passed, "ledger PAY_DEDUCT rows = " + std::to_string(r.unique))) << VariantName(v);
    EXPECT_TRUE(Has(r.checks_passed, "payments charged more than once = 0")) << VariantName(v);
    EXPECT_TRUE(Has(r.checks_passed, "SUCCEEDED records = " + std::to_string(r.unique))) << VariantName(v);
    if (v == Variant::kService) {
      EXPECT_TRUE(Has(r.checks_passed, "idem run exited 0")) << "the process stopped once the queue was empty";
      EXPECT_TRUE(Has(r.checks_passed, "the queue is empty"));
    } else {
      EXPECT_TRUE(Has(r.checks_passed, "payments handler runs = " + std::to_string(r.unique)));
      EXPECT_TRUE(Has(r.checks_passed, "messages acked = 600"));
    }
  }
}

TEST(ServiceRun, WithoutAnIdemProgramTheRunFailsAndSaysWhy) {
  TempDir dir;
  RunSpec s = Spec(dir, Variant::kService, "queue");
  s.idem_path.clear();
  const RunResult r = RunServiceEndToEnd(s);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("no idem program"), std::string::npos) << r.error;
}

TEST(ServiceRun, PartIdemRunRunsThatPartAloneAndAnUnknownPartIsAUsageError) {
  TempDir dir;
  ProcessResult p = RunProcess({IDEM_CLI_PATH, "bench", "--quick", "--json", "--part", "idem-run", "--e2e-messages",
                                "300", "--out", dir.File("out"), "--work-dir", dir.File("work")});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  nlohmann::json j = nlohmann::json::parse(p.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << p.out;
  std::vector<std::string> runs;
  for (const auto& run : j["runs"]) {
    runs.push_back(run["name"].get<std::string>());
    EXPECT_TRUE(run["exactly_once"].get<bool>()) << run.dump();
  }
  EXPECT_EQ(runs, (std::vector<std::string>{"embedded-in-store library B=100 #1", "embedded-in-store idem-run B=100 #1",
                                            "embedded-in-store idem-run no-decision-log B=100 #1",
                                            "embedded library B=100 #1", "embedded idem-run B=100 #1"}))
      << "one round on each of the two queues, nothing else";
  EXPECT_EQ(j["idem_run_vs_library"]["embedded-in-store"]["no_decision_log_pairs"].get<int>(), 1)
      << j["idem_run_vs_library"].dump();
  EXPECT_TRUE(j["micro_benchmarks"].empty());
  std::ifstream in(dir.File("out") + "/REPORT.md");
  const std::string report((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(report.find("## `idem run` against the library's pipeline"), std::string::npos) << report;
  EXPECT_NE(report.find("| embedded-in-store | "), std::string::npos) << report;
  EXPECT_EQ(report.find("## Headline"), std::string::npos) << "the parts left out leave their sections out";
  EXPECT_EQ(report.find("## Latency"), std::string::npos);

  ProcessResult bad = RunProcess({IDEM_CLI_PATH, "bench", "--part", "everything"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--part"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace idem::bench
