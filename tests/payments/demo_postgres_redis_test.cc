// `idem demo` on PostgreSQL with the Redis fast filter: the same
// incident and crash scenario, judged from the PostgreSQL ledger, with the
// filter's keys found in Redis. Needs the servers scripts/test.sh starts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "idem/store.h"
#include "testing/test_util.h"

namespace idem {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

TEST(DemoOnPostgresAndRedisTest, IdemIsCleanTheNaiveConsumerDoubleCharges) {
  const std::string pg = Env("IDEM_TEST_POSTGRES_URL"), redis = Env("IDEM_TEST_REDIS_URL");
  if (pg.empty() || redis.empty())
    GTEST_SKIP() << "needs IDEM_TEST_POSTGRES_URL and IDEM_TEST_REDIS_URL (scripts/test.sh starts both servers)";
  auto r = testing::RunProcess({IDEM_CLI_PATH, "demo", "--json", "--messages", "120", "--seed", "3", "--only",
                                "001,A2", "--store-url", pg, "--redis-url", redis});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["idem_clean"].get<bool>());
  EXPECT_TRUE(j["off_shows_damage"].get<bool>());
  EXPECT_NE(j["setup"].get<std::string>().find("PostgreSQL"), std::string::npos);

  // The ledger of the idem run of A2, read from PostgreSQL itself.
  auto store = OpenStore(pg + "?options=-csearch_path%3Didem_demo_a2_idem", Env::Default());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto tx = (*store)->Begin();
  ASSERT_TRUE(tx.ok());
  auto rows = (*tx)->Query(
      "SELECT (SELECT COUNT(*) FROM pay_account_flows), (SELECT COUNT(*) FROM (SELECT biz_no, type FROM "
      "pay_account_flows GROUP BY biz_no, type HAVING COUNT(*) > 1) d), (SELECT COUNT(*) FROM idem_records)",
      {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_GT(AsInt((*rows)[0][0]), 50) << "the run wrote its ledger to PostgreSQL";
  EXPECT_EQ(AsInt((*rows)[0][1]), 0) << "no (biz_no, type) twice";
  EXPECT_GT(AsInt((*rows)[0][2]), 50) << "consumption records live in PostgreSQL";

  // The fast filter marked the committed keys DONE in Redis.
  auto keys = testing::RunProcess(
      {"/usr/bin/redis-cli", "-u", redis, "--scan", "--pattern", "idem-demo:idem_demo_a2_idem:*"});
  ASSERT_EQ(keys.exit_code, 0) << keys.err;
  EXPECT_GT(std::count(keys.out.begin(), keys.out.end(), '\n'), 50) << keys.out.substr(0, 200);
}

}  // namespace
}  // namespace idem
