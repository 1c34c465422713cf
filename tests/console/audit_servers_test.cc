// idem_audit on PostgreSQL and MySQL/MariaDB: the table is created in each
// dialect, a change's row is written, completed and listed newest first.
// Skipped without the test servers (scripts/servers/{postgres,mariadb}.sh
// start, then source build/test-servers.env; scripts/test.sh does both).
#include <gtest/gtest.h>

#include "console/audit_log.h"

namespace idem::console {
namespace {

class AuditOnServers : public ::testing::TestWithParam<const char*> {};

TEST_P(AuditOnServers, RowsAreWrittenCompletedAndListedNewestFirst) {
  const char* url = std::getenv(GetParam());
  if (!url || !*url) GTEST_SKIP() << GetParam() << " is not set";
  auto store = OpenStore(url, Env::Default());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto audit = AuditLog::Open(store->get());
  ASSERT_TRUE(audit.ok()) << audit.status().ToString();
  ASSERT_TRUE(AuditLog::Open(store->get()).ok()) << "creating the table again is a no-op";
  const Identity alice{"alice", Role::kOperator, "console login"};
  auto first = audit->Begin(alice, "replay", "amqp://idem:***@127.0.0.1/", "3,7", 1000);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto second = audit->Begin(alice, "purge", "amqp://idem:***@127.0.0.1/", "all", 2000);
  ASSERT_TRUE(second.ok());
  EXPECT_GT(*second, *first);
  ASSERT_TRUE(audit->Finish(*first, 2, "ok").ok());
  // The shared test database may hold other runs' rows: page from our own newest.
  auto rows = audit->List(2, *second + 1);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].id, *second);
  EXPECT_EQ((*rows)[0].outcome, "started");
  EXPECT_EQ((*rows)[0].changed, -1);
  EXPECT_EQ((*rows)[1].operator_name, "alice");
  EXPECT_EQ((*rows)[1].authenticated_by, "console login");
  EXPECT_EQ((*rows)[1].dead_letter_ids, "3,7");
  EXPECT_EQ((*rows)[1].changed, 2);
  EXPECT_EQ((*rows)[1].outcome, "ok");
  EXPECT_EQ((*rows)[1].at_ms, 1000);
}

INSTANTIATE_TEST_SUITE_P(Dialects, AuditOnServers, ::testing::Values("IDEM_TEST_POSTGRES_URL", "IDEM_TEST_MYSQL_URL"),
                         [](const auto& info) { return std::string(info.param).find("POSTGRES") == std::string::npos ? "mysql" : "postgres"; });

}  // namespace
}  // namespace idem::console
