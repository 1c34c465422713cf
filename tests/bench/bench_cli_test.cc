// `idem bench` end to end on a tiny workload: exit 0, every figure and both
// ratios in the JSON, every variant verified exactly once, the report written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <map>
#include <set>
#include <sstream>

#include "testing/test_util.h"

namespace idem::testing {
namespace {

ProcessResult Bench(const std::vector<std::string>& args) {
  std::vector<std::string> argv{IDEM_CLI_PATH, "bench"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(BenchCli, TinyQuickRunPrintsEveryFigureAndWritesTheReport) {
  TempDir dir;
  const std::string out = dir.File("results");
  ProcessResult p = Bench({"--quick", "--json", "--out", out, "--work-dir", dir.File("work"), "--messages", "1500",
                           "--seconds", "0.5", "--history", "500", "--paced-seconds", "0.3", "--sweep", "1,100",
                           "--micro-min-time", "0.001", "--e2e-messages", "400", "--compare-pairs", "2"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  nlohmann::json j = nlohmann::json::parse(p.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << p.out;

  EXPECT_TRUE(j["all_exactly_once"].get<bool>());
  EXPECT_GT(j["idem/naive"].get<double>(), 0);
  EXPECT_GT(j["idem/ceiling"].get<double>(), 0);
  EXPECT_GT(j["ratios"]["sqlite"]["idem/naive"].get<double>(), 0);
  EXPECT_GT(j["ratios"]["sqlite"]["idem/ceiling"].get<double>(), 0);

  std::set<std::string> variants, roles;
  std::vector<std::pair<std::string, int>> compare;  // variant, pair
  for (const auto& run : j["runs"]) {
    if (run["role"] == "compare") compare.emplace_back(run["variant"].get<std::string>(), run["repeat"].get<int>());
    EXPECT_TRUE(run["exactly_once"].get<bool>()) << run.dump();
    EXPECT_TRUE(run["check_failures"].empty()) << run.dump();
    // An idem-run run is timed by watching the queue drain; 400 messages may drain between two looks.
    if (run["role"] != "idem-run") EXPECT_GT(run["messages"].get<int64_t>(), 0) << run.dump();
    EXPECT_GT(run["peak_rss_kb"].get<int64_t>(), 0) << run.dump();
    variants.insert(run["variant"].get<std::string>());
    roles.insert(run["role"].get<std::string>());
    if (run["phase"] == "paced") {
      EXPECT_GT(run["latency_ms"]["samples"].get<int64_t>(), 0) << run.dump();
    }
  }
  EXPECT_EQ(variants, (std::set<std::string>{"idem", "naive", "ceiling", "raw", "idem-run"}));
  // Two alternated idem/ceiling pairs, then naive once, each checked above.
  EXPECT_EQ(compare, (std::vector<std::pair<std::string, int>>{
                         {"idem", 1}, {"ceiling", 1}, {"idem", 2}, {"ceiling", 2}, {"naive", 0}}));
  EXPECT_EQ(j["workload"]["compare_pairs"].get<int>(), 2);
  EXPECT_EQ(j["stores"]["sqlite"]["compare_pairs"].get<int>(), 2);
  EXPECT_EQ(j["stores"]["sqlite"]["compare_pairs_msgs_per_s"].size(), 2u);
  for (const char* role :
       {"compare", "batch-sweep", "random-keys", "history", "no-copies", "latency-common-rate", "end-to-end",
        "idem-run"})
    EXPECT_TRUE(roles.count(role)) << role;
  EXPECT_GT(j["stores"]["sqlite"]["batch_sweep_msgs_per_s"]["idem"]["1"].get<double>(), 0);
  EXPECT_GT(j["stores"]["sqlite"]["batch_sweep_msgs_per_s"]["ceiling"]["100"].get<double>(), 0);
  EXPECT_FALSE(j["micro_benchmarks"].empty()) << j["micro_error"];
  // End to end on the embedded queue, in a file of its own and in the store's file: all three measured.
  for (const char* broker : {"embedded", "embedded-in-store"}) {
    const auto& e = j["end_to_end"][broker];
    EXPECT_EQ(e["pairs"].get<int>(), 1) << j["end_to_end"].dump();
    EXPECT_EQ(e["messages_per_run"].get<int64_t>(), 400) << j["end_to_end"].dump();
    EXPECT_GT(e["idem/raw"].get<double>(), 0) << j["end_to_end"].dump();
    EXPECT_GT(e["idem/ceiling"].get<double>(), 0) << j["end_to_end"].dump();
    EXPECT_GT(e["raw_msgs_per_s"].get<double>(), 0) << j["end_to_end"].dump();
    EXPECT_GT(e["ceiling_msgs_per_s"].get<double>(), 0) << j["end_to_end"].dump();
  }

  // `idem run` against the library on both embedded queues: one round each, both runs exactly once.
  for (const char* queue : {"embedded", "embedded-in-store"}) {
    const auto& s = j["idem_run_vs_library"][queue];
    EXPECT_EQ(s["messages_per_run"].get<int64_t>(), 400) << j["idem_run_vs_library"].dump();
    EXPECT_TRUE(s.contains("idem_run/library")) << j["idem_run_vs_library"].dump();
  }

  // The goals: every row, SQLite's and the embedded queues' judged, the servers' not measured.
  std::map<std::string, std::string> goals;  // path → state
  for (const auto& g : j["goals"]) goals[g["path"].get<std::string>()] = g["state"].get<std::string>();
  EXPECT_EQ(goals.size(), 10u) << j["goals"].dump();
  EXPECT_NE(goals["idem / naive, every store"], "not measured in this run") << j["goals"].dump();
  EXPECT_NE(goals["end to end on a broker, idem / ceiling (same effects)"], "not measured in this run");
  EXPECT_NE(goals["`idem run` end to end / the library's pipeline on the same queue and store"],
            "not measured in this run");
  for (const auto& [path, state] : goals)
    if (path.find("PostgreSQL") != std::string::npos || path.find("MariaDB") != std::string::npos)
      EXPECT_EQ(state, "not measured in this run") << path;
  EXPECT_TRUE(j["workers"].empty());
  EXPECT_TRUE(j["fast_filter"].empty());

  const std::string report = ReadFile(out + "/REPORT.md");
  EXPECT_NE(report.find("## Goals"), std::string::npos);
  EXPECT_FALSE(std::regex_search(report, std::regex("issue \\(?[0-9]"))) << "the report cites no issue";
  EXPECT_NE(report.find("idem / naive"), std::string::npos);
  EXPECT_NE(report.find("End to end"), std::string::npos);
  EXPECT_NE(report.find("idem / ceiling (median, range)"), std::string::npos);
  EXPECT_NE(report.find("## idem against the ceiling, pair by pair"), std::string::npos);
  EXPECT_NE(report.find("| sqlite | 2 |"), std::string::npos) << "a row per compare pair";
  EXPECT_NE(report.find("| sqlite | **median** |"), std::string::npos);
  EXPECT_NE(report.find("exactly once"), std::string::npos);
  EXPECT_NE(report.find("BM_ClaimBatch"), std::string::npos);
  // The plot needs gnuplot; without it the report says how to get it.
  if (j["plot"].get<std::string>().empty()) {
    EXPECT_NE(j["plot_note"].get<std::string>().find("gnuplot"), std::string::npos);
  } else {
    EXPECT_GT(std::filesystem::file_size(out + "/throughput_vs_batch.png"), 1000u);
  }
  EXPECT_NE(p.err.find("exactly once"), std::string::npos) << "progress goes to stderr";
}

TEST(BenchCli, AStoreThatCannotBeReachedIsAUsageErrorThatSaysSo) {
  TempDir dir;
  ProcessResult p = Bench({"--quick", "--out", dir.File("out"), "--work-dir", dir.File("work"), "--store-url",
                           "postgresql://bench@127.0.0.1:1/bench"});
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_NE(p.err.find("--store (postgres)"), std::string::npos) << p.err;
}

TEST(BenchCli, RedisThatCannotBeReachedIsAUsageErrorThatSaysSo) {
  TempDir dir;
  ProcessResult p = Bench({"--quick", "--out", dir.File("out"), "--work-dir", dir.File("work"), "--store-url",
                           "sqlite:" + dir.File("shared.db"), "--redis-url", "redis://127.0.0.1:1"});
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_NE(p.err.find("redis"), std::string::npos) << p.err;
}

}  // namespace
}  // namespace idem::testing
