// The outbox relay on PostgreSQL: the outbox conformance suite.
#include "conformance/outbox_conformance.h"
#include "postgres/pg_test_support.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

// Each connection gives up on a row lock after 5 s: a relay that waited for a
// held row instead of skipping it fails the step instead of hanging the suite.
// (FreshSchemaUrl ends in libpq's options=…, so one more -c setting goes after it.)
std::unique_ptr<Store> OpenWithLockTimeout(const std::string& url, Env*) {
  auto store = OpenPgStoreOrFail(url + "%20-clock_timeout%3D5000");
  if (store)
    EXPECT_EQ(QueryInt(*store, "SELECT COUNT(*) FROM pg_settings WHERE name = 'lock_timeout' AND setting = '5000'"), 1);
  return store;
}

StoreFactory PostgresOutboxFactory() {
  return StoreFactory{"postgres", &FreshSchemaUrlOrSkip, &OpenWithLockTimeout};
}

INSTANTIATE_TEST_SUITE_P(Postgres, OutboxConformance, ::testing::Values(PostgresOutboxFactory()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace idem::testing
