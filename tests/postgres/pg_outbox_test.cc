// The outbox relay on PostgreSQL: relays skip rows another transaction holds
// (FOR UPDATE SKIP LOCKED) instead of waiting for it, and publish the rest.
#include <gtest/gtest.h>

#include "idem/embedded_queue.h"
#include "idem/handler.h"
#include "ops/outbox/relay.h"
#include "postgres/pg_test_support.h"
#include "sim/sim_env.h"
#include "testing/test_util.h"

namespace idem {
namespace {

TEST(PgOutboxTest, RelaySkipsRowsAnotherTransactionHoldsAndPublishesTheRest) {
  if (testing::PostgresTestUrl().empty()) GTEST_SKIP() << testing::kNoPostgres;
  const std::string url = testing::FreshSchemaUrl();
  // The relay's session gives up on a row lock after 5 s: if it waited for the
  // held row instead of skipping it, the step fails instead of hanging the suite.
  // (FreshSchemaUrl ends in libpq's options=…, so one more -c setting goes after it.)
  auto store = testing::OpenPgStoreOrFail(url + "%20-clock_timeout%3D5000");
  auto other = testing::OpenPgStoreOrFail(url);
  ASSERT_TRUE(store && other);
  testing::TempDir dir;
  sim::SimEnv env(/*seed=*/1);
  auto queue = EmbeddedQueue::Open(dir.File("queue.db"), {}, &env);
  ASSERT_TRUE(queue.ok());
  {
    auto tx = store->Begin();
    ASSERT_TRUE(tx.ok());
    Message in;
    const std::string key = "pay:x";
    Payload payload;
    HandlerContext ctx{in, key, **tx, env, payload};
    for (const char* k : {"grant:1", "grant:2", "grant:3"})
      ASSERT_TRUE(ctx.Emit({"points.grant", k, "{}", {}}).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  auto holder = other->Begin();
  ASSERT_TRUE(holder.ok());
  auto held = (*holder)->Query("SELECT id FROM idem_outbox WHERE msg_key = 'grant:1' FOR UPDATE", {});
  ASSERT_TRUE(held.ok()) << held.status().ToString();

  ASSERT_EQ(testing::QueryInt(*store, "SELECT COUNT(*) FROM pg_settings WHERE name = 'lock_timeout' AND setting = '5000'"),
            1);
  outbox::Relay relay(*store, (*queue)->publisher());
  auto step = relay.RelayOnce(env.NowMs());
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_EQ(step->published, 2) << "the held row is skipped, not waited for";
  (*holder)->Rollback();
  step = relay.RelayOnce(env.NowMs());
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_EQ(step->published, 1);
  auto got = (*queue)->Poll(10, 0);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 3u);
  EXPECT_EQ((*got)[2].key, "grant:1");
}

}  // namespace
}  // namespace idem
