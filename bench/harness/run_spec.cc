#include "harness/run_spec.h"

#include <algorithm>

namespace idem::bench {

const char* VariantName(Variant v) {
  switch (v) {
    case Variant::kIdem: return "idem";
    case Variant::kNaive: return "naive";
    case Variant::kCeiling: return "ceiling";
    case Variant::kRaw: return "raw";
    case Variant::kService: return "idem-run";
  }
  return "?";
}

const char* RoleName(Role r) {
  switch (r) {
    case Role::kCompare: return "compare";
    case Role::kSweep: return "batch-sweep";
    case Role::kRandomKeys: return "random-keys";
    case Role::kHistory: return "history";
    case Role::kNoCopies: return "no-copies";
    case Role::kLatencyCommon: return "latency-common-rate";
    case Role::kLatencyHigh: return "latency-high-rate";
    case Role::kSoak: return "soak";
    case Role::kEndToEnd: return "end-to-end";
    case Role::kFilter: return "fast-filter";
    case Role::kService: return "idem-run";
  }
  return "?";
}

bool RoleFromName(const std::string& name, Role* out) {
  for (Role r : {Role::kCompare, Role::kSweep, Role::kRandomKeys, Role::kHistory, Role::kNoCopies, Role::kLatencyCommon,
                 Role::kLatencyHigh, Role::kSoak, Role::kEndToEnd, Role::kFilter, Role::kService})
    if (name == RoleName(r)) {
      *out = r;
      return true;
    }
  return false;
}

const char* PhaseName(Phase p) { return p == Phase::kSaturated ? "saturated" : "paced"; }

LatencyStats SummariseLatencies(std::vector<int64_t> micros) {
  LatencyStats s;
  if (micros.empty()) return s;
  std::sort(micros.begin(), micros.end());
  // Nearest rank: the smallest sample at or above the given share of all samples.
  auto at = [&](double q) {
    size_t rank = static_cast<size_t>(q * static_cast<double>(micros.size()) + 0.999999);
    rank = std::clamp<size_t>(rank, 1, micros.size());
    return static_cast<double>(micros[rank - 1]) / 1000.0;
  };
  double sum = 0;
  for (int64_t v : micros) sum += static_cast<double>(v);
  s.samples = static_cast<int64_t>(micros.size());
  s.p50_ms = at(0.50);
  s.p90_ms = at(0.90);
  s.p99_ms = at(0.99);
  s.max_ms = static_cast<double>(micros.back()) / 1000.0;
  s.mean_ms = sum / static_cast<double>(micros.size()) / 1000.0;
  return s;
}

}  // namespace idem::bench
