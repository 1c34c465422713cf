// The embedded queue under the source conformance suite, on a manual clock: the
// suite's bounded polls move it, so delays pass without real waiting.
#include "conformance/source_conformance.h"
#include "idem/embedded_queue.h"
#include "testing/test_util.h"
#include "sim/sim_env.h"

namespace idem::testing {
namespace {

SourceFactory EmbeddedFactory() {
  static TempDir dir;
  static sim::SimEnv env{/*seed=*/42};
  static int next = 0;
  SourceFactory f;
  f.name = "embedded";
  f.fresh_queue = [] { return dir.File("source-" + std::to_string(++next) + ".db"); };
  f.open = [](const std::string& path) -> std::unique_ptr<Broker> {
    EmbeddedQueueOptions o;
    o.visibility_timeout_ms = 3'600'000;  // leases outlast the suite's polling; abandon is tested explicitly
    auto q = EmbeddedQueue::Open(path, o, &env);
    if (!q.ok()) ADD_FAILURE() << q.status().ToString();
    return q.ok() ? std::move(*q) : nullptr;
  };
  return f;
}

INSTANTIATE_TEST_SUITE_P(Embedded, SourceConformance, ::testing::Values(EmbeddedFactory()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace idem::testing
