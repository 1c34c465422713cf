// `idem demo --store mysql://…`: the incident and the crash scenario on
// MariaDB, judged from the ledger the idem run left in its own database.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mysql/my_test_support.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

TEST(DemoOnMysqlTest, IdemIsCleanTheNaiveConsumerDoubleCharges) {
  if (MysqlTestUrl().empty()) GTEST_SKIP() << kNoMysql;
  auto r = RunProcess({IDEM_CLI_PATH, "demo", "--json", "--messages", "120", "--seed", "3", "--only", "001,A2",
                       "--store-url", MysqlTestUrl()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["idem_clean"].get<bool>());
  EXPECT_TRUE(j["off_shows_damage"].get<bool>());
  EXPECT_NE(j["setup"].get<std::string>().find("MySQL/MariaDB"), std::string::npos) << j["setup"];
  EXPECT_EQ(j["setup"].get<std::string>().find(":idem@"), std::string::npos) << "the password is redacted";

  // The ledger of the idem run of A2, in the run's own database.
  const std::string db = "idem_demo_a2_idem";
  EXPECT_GT(AdminInt("SELECT COUNT(*) FROM pay_account_flows", db), 50) << "the run wrote its ledger to MariaDB";
  EXPECT_EQ(AdminInt("SELECT COUNT(*) FROM (SELECT biz_no, type FROM pay_account_flows GROUP BY biz_no, type "
                     "HAVING COUNT(*) > 1) d",
                     db),
            0)
      << "no (biz_no, type) twice";
  EXPECT_GT(AdminInt("SELECT COUNT(*) FROM idem_records", db), 50) << "consumption records live in MariaDB";
}

}  // namespace
}  // namespace idem::testing
