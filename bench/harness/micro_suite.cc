#include "harness/micro_suite.h"

#include <benchmark/benchmark.h>

#include "micro/hot_paths.h"

namespace idem::bench {
namespace {

class CollectingReporter final : public benchmark::BenchmarkReporter {
 public:
  explicit CollectingReporter(std::vector<MicroResult>* out) : out_(out) {}
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.error_occurred || run.run_type != Run::RT_Iteration) continue;
      MicroResult m;
      m.name = run.benchmark_name();
      m.ns_per_op = run.GetAdjustedRealTime() * 1e9 / benchmark::GetTimeUnitMultiplier(run.time_unit);
      m.iterations = static_cast<int64_t>(run.iterations);
      if (auto it = run.counters.find("items_per_second"); it != run.counters.end()) m.items_per_s = it->second;
      if (auto it = run.counters.find("bytes_per_second"); it != run.counters.end()) m.bytes_per_s = it->second;
      out_->push_back(std::move(m));
    }
  }

 private:
  std::vector<MicroResult>* out_;
};

}  // namespace

std::vector<MicroResult> RunMicroBenchmarks(double min_time_s) {
  RegisterHotPathBenchmarks();
  std::string program = "idem-bench", min_time = "--benchmark_min_time=" + std::to_string(min_time_s);
  char* argv[] = {program.data(), min_time.data(), nullptr};
  int argc = 2;
  benchmark::Initialize(&argc, argv);
  std::vector<MicroResult> out;
  CollectingReporter reporter(&out);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return out;
}

nlohmann::json ToJson(const std::vector<MicroResult>& results) {
  nlohmann::json a = nlohmann::json::array();
  for (const MicroResult& m : results)
    a.push_back({{"name", m.name},
                 {"ns_per_op", m.ns_per_op},
                 {"items_per_s", m.items_per_s},
                 {"bytes_per_s", m.bytes_per_s},
                 {"iterations", m.iterations}});
  return a;
}

std::vector<MicroResult> MicroResultsFromJson(const nlohmann::json& j) {
  std::vector<MicroResult> out;
  if (!j.is_array()) return out;
  for (const auto& e : j)
    out.push_back({e.value("name", std::string()), e.value("ns_per_op", 0.0), e.value("items_per_s", 0.0),
                   e.value("bytes_per_s", 0.0), e.value("iterations", int64_t{0})});
  return out;
}

}  // namespace idem::bench
