#include "harness/run_json.h"

namespace idem::bench {

using nlohmann::json;

namespace {

Variant VariantFromName(const std::string& s) {
  if (s == "naive") return Variant::kNaive;
  if (s == "ceiling") return Variant::kCeiling;
  if (s == "raw") return Variant::kRaw;
  if (s == "idem-run") return Variant::kService;
  return Variant::kIdem;
}

template <typename T>
void Get(const json& j, const char* key, T* out) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) *out = it->get<T>();
}

}  // namespace

json ToJson(const RunSpec& s) {
  return {{"name", s.name},
          {"role", RoleName(s.role)},
          {"store", s.store_label},
          {"redis", !s.redis_url.empty()},
          {"variant", VariantName(s.variant)},
          {"batch_size", s.variant == Variant::kNaive ? 1 : s.batch_size},
          {"phase", PhaseName(s.phase)},
          {"messages_offered", s.messages},
          {"max_seconds", s.max_seconds},
          {"offered_rate_per_s", s.rate_per_s},
          {"paced_seconds", s.paced_seconds},
          {"duplicate_ratio", s.duplicate_ratio},
          {"keys", KeyOrderName(s.keys)},
          {"history", s.history},
          {"seed", s.seed},
          {"broker", s.broker_label},
          {"repeat", s.repeat}};
}

json ToJson(const RunResult& r) {
  json rss = json::array();
  for (const auto& [messages, kb] : r.rss_kb_at) rss.push_back({{"messages", messages}, {"rss_kb", kb}});
  json j = ToJson(r.spec);
  j["ok"] = r.ok;
  j["error"] = r.error;
  j["messages"] = r.messages;
  j["unique"] = r.unique;
  j["batches"] = r.batches;
  j["seconds"] = r.seconds;
  j["setup_seconds"] = r.setup_seconds;
  j["msgs_per_s"] = r.msgs_per_s;
  j["cpu_user_s"] = r.cpu_user_s;
  j["cpu_system_s"] = r.cpu_system_s;
  j["bytes_written"] = r.bytes_written;
  j["latency_ms"] = {{"samples", r.latency.samples}, {"p50", r.latency.p50_ms}, {"p90", r.latency.p90_ms},
                     {"p99", r.latency.p99_ms},      {"max", r.latency.max_ms},  {"mean", r.latency.mean_ms}};
  j["drain_seconds"] = r.drain_seconds;
  j["overloaded"] = r.overloaded;
  j["rss_start_kb"] = r.rss_start_kb;
  j["peak_rss_kb"] = r.peak_rss_kb;
  j["rss_kb_at"] = rss;
  j["exactly_once"] = r.check_failures.empty() && r.ok;
  j["checks_passed"] = r.checks_passed;
  j["check_failures"] = r.check_failures;
  j["business_runs"] = r.business_runs;
  j["filtered"] = r.filtered;
  return j;
}

RunResult RunResultFromJson(const json& j) {
  RunResult r;
  Get(j, "name", &r.spec.name);
  Get(j, "store", &r.spec.store_label);
  std::string role;
  Get(j, "role", &role);
  RoleFromName(role, &r.spec.role);
  std::string variant = "idem", phase = "saturated", keys = "sequential";
  Get(j, "variant", &variant);
  Get(j, "phase", &phase);
  Get(j, "keys", &keys);
  r.spec.variant = VariantFromName(variant);
  r.spec.phase = phase == "paced" ? Phase::kPaced : Phase::kSaturated;
  r.spec.keys = keys == "random" ? KeyOrder::kRandom : KeyOrder::kSequential;
  Get(j, "batch_size", &r.spec.batch_size);
  Get(j, "messages_offered", &r.spec.messages);
  Get(j, "max_seconds", &r.spec.max_seconds);
  Get(j, "offered_rate_per_s", &r.spec.rate_per_s);
  Get(j, "paced_seconds", &r.spec.paced_seconds);
  Get(j, "duplicate_ratio", &r.spec.duplicate_ratio);
  Get(j, "history", &r.spec.history);
  Get(j, "seed", &r.spec.seed);
  Get(j, "broker", &r.spec.broker_label);
  Get(j, "repeat", &r.spec.repeat);
  Get(j, "ok", &r.ok);
  Get(j, "error", &r.error);
  Get(j, "messages", &r.messages);
  Get(j, "unique", &r.unique);
  Get(j, "batches", &r.batches);
  Get(j, "seconds", &r.seconds);
  Get(j, "setup_seconds", &r.setup_seconds);
  Get(j, "msgs_per_s", &r.msgs_per_s);
  Get(j, "cpu_user_s", &r.cpu_user_s);
  Get(j, "cpu_system_s", &r.cpu_system_s);
  Get(j, "bytes_written", &r.bytes_written);
  if (auto it = j.find("latency_ms"); it != j.end()) {
    Get(*it, "samples", &r.latency.samples);
    Get(*it, "p50", &r.latency.p50_ms);
    Get(*it, "p90", &r.latency.p90_ms);
    Get(*it, "p99", &r.latency.p99_ms);
    Get(*it, "max", &r.latency.max_ms);
    Get(*it, "mean", &r.latency.mean_ms);
  }
  Get(j, "drain_seconds", &r.drain_seconds);
  Get(j, "overloaded", &r.overloaded);
  Get(j, "rss_start_kb", &r.rss_start_kb);
  Get(j, "peak_rss_kb", &r.peak_rss_kb);
  if (auto it = j.find("rss_kb_at"); it != j.end() && it->is_array())
    for (const json& p : *it) r.rss_kb_at.emplace_back(p.value("messages", int64_t{0}), p.value("rss_kb", int64_t{0}));
  Get(j, "checks_passed", &r.checks_passed);
  Get(j, "check_failures", &r.check_failures);
  Get(j, "business_runs", &r.business_runs);
  Get(j, "filtered", &r.filtered);
  return r;
}

}  // namespace idem::bench
