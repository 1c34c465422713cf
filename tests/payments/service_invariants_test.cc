// Every cause of redelivery, with idem: the invariants of the
// payments service hold, read from the database and the queue files.
#include <gtest/gtest.h>

#include "invariants.h"
#include "demo/scenario_run.h"
#include "testing/test_util.h"

namespace idem::demo {
namespace {

class ServiceInvariants : public ::testing::TestWithParam<Cause> {};

TEST_P(ServiceInvariants, HoldWithIdemAfterEveryCauseOfRedelivery) {
  for (uint64_t seed : {3u, 11u}) {
    idem::testing::TempDir dir;
    Workload w = MakeWorkload(GetParam(), {seed, 150});
    RunOptions o;
    o.dir = dir.path();
    auto r = RunScenario(w, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    // The cause really made the broker deliver again, or the test would prove
    // nothing. With idem, a throw (the incident, A4) comes back through the
    // retry ladder as a new attempt rather than as a duplicate copy.
    EXPECT_GT(r->deliveries, r->published) << "seed " << seed;
    if (GetParam() != Cause::kThrowAfterEffect && GetParam() != Cause::kIncident) {
      EXPECT_GT(r->duplicate_deliveries, 0) << "seed " << seed;
    }
    testing::Violations v = testing::CheckInvariants(dir.path(), w);
    EXPECT_TRUE(v.empty()) << "seed " << seed << ":\n" << v.Summary();
    EXPECT_GT(testing::RepeatPaymentsCharged(dir.path(), w), 0)
        << "a second payment of the same user and amount with a new key must be charged, not blocked";
  }
}

std::string Name(const ::testing::TestParamInfo<Cause>& info) {
  std::string id = InfoOf(info.param).id;
  return id == "001" ? "Incident001" : id;
}

INSTANTIATE_TEST_SUITE_P(AllCauses, ServiceInvariants,
                         ::testing::Values(Cause::kIncident, Cause::kProducerResend, Cause::kCrashBeforeAck,
                                           Cause::kVisibilityTimeout, Cause::kThrowAfterEffect, Cause::kRebalance,
                                           Cause::kOutOfOrder),
                         Name);

}  // namespace
}  // namespace idem::demo
