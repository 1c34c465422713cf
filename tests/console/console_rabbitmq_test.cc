// The console over RabbitMQ's dead-letter queue: the same list, replay and
// audit as on the embedded queue. Skipped without the test broker
// (scripts/servers/rabbitmq.sh start; scripts/test.sh does it).
#include <unistd.h>

#include "console/console_fixture.h"

namespace idem::console::testing {
namespace {

class ConsoleOnRabbitMq : public ConsoleFixture {
 protected:
  std::string BrokerUrl() override {
    const char* base = std::getenv("IDEM_TEST_AMQP_URL");
    if (!base || !*base) return "";
    return std::string(base) + "?queue=t.console." + std::to_string(getpid()) + "." +
           std::to_string(Env::Default()->Random64() % 1'000'000);
  }
};

TEST_F(ConsoleOnRabbitMq, ListsReplaysAndAuditsUnderTheLogin) {
  Park("pay:R1", R"({"payment_id":"R1","note":"<script>x</script>"})", "account missing");
  auto login = LogIn("alice", "alice-secret");
  ASSERT_TRUE(login);
  auto list = client_->Get("/console/", Browser(&*login, ""));
  ASSERT_TRUE(list);
  ASSERT_EQ(list->status, 200) << list->body;
  EXPECT_NE(list->body.find("pay:R1"), std::string::npos) << list->body;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(list->body, m, std::regex("name=\"id\" value=\"([0-9]+)\""))) << list->body;
  const std::string id = m[1];
  auto detail = client_->Get("/console/dead/" + id, Browser(&*login, ""));
  ASSERT_TRUE(detail);
  EXPECT_EQ(detail->status, 200);
  EXPECT_EQ(detail->body.find("<script>"), std::string::npos);

  auto r = Post("/console/replay", &*login, {{"id", id}});
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find("Replayed 1 message(s)"), std::string::npos) << r->body;
  EXPECT_EQ(Stats().dead, 0);
  EXPECT_EQ(Stats().ready, 1) << "back in the main queue";
  const std::vector<AuditEntry> rows = AuditRows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].operator_name, "alice");
  EXPECT_EQ(rows[0].dead_letter_ids, id);
  EXPECT_EQ(rows[0].changed, 1);
}

TEST_F(ConsoleOnRabbitMq, AnIdThatNamesNoDeadLetterIs404AndMovesNothing) {
  Park("pay:R2", R"({"payment_id":"R2"})", "account missing");
  auto login = LogIn("alice", "alice-secret");
  ASSERT_TRUE(login);
  auto replay = Post("/console/replay", &*login, {{"id", "987654321"}});
  ASSERT_TRUE(replay);
  EXPECT_EQ(replay->status, 404) << replay->body;
  auto purge = Post("/console/purge", &*login, {{"id", "987654321"}, {"confirm", "yes"}});
  ASSERT_TRUE(purge);
  EXPECT_EQ(purge->status, 404) << purge->body;
  EXPECT_EQ(Stats().dead, 1);
  EXPECT_EQ(Stats().ready, 0);
  const std::vector<AuditEntry> rows = AuditRows();
  ASSERT_EQ(rows.size(), 2u);
  for (const AuditEntry& e : rows) EXPECT_EQ(e.outcome, "not_found") << e.action;
}

}  // namespace
}  // namespace idem::console::testing
