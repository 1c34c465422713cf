// The outbox relay inside `idem run` ([outbox] relay = true): it publishes
// what handlers emitted to the service's broker, a consumer group behind idem
// applies each message once, /metrics counts the outbox, and the relay stops
// with the service. Synchronised on the service's log lines, never on time.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <fstream>
#include <sstream>

#include "idem/handler.h"
#include "payments/events.h"
#include "payments/schema.h"
#include "service/running_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using testing::QueryInt;
using testing::RunningIdem;
using testing::TempDir;

constexpr int kGrants = 40;

// The value of an unlabelled sample `name` in a scrape; -1 when absent.
double UnlabelledSample(const std::string& scrape, const std::string& name) {
  std::istringstream in(scrape);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(name + " ", 0) == 0) return std::stod(line.substr(name.size() + 1));
  return -1;
}

class OutboxRelayServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = OpenSqliteStore(dir_.File("s.db"), {}, Env::Default());
    ASSERT_TRUE(s.ok());
    store_ = std::move(*s);
    ASSERT_TRUE(payments::CreateSchema(*store_, payments::SchemaVariant::kGuarded).ok());
  }

  // Commits points.grant messages the way a pay.success handler emits them.
  void EmitGrants(int n) {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    Message in;
    const std::string key = "pay.success:batch";
    Payload payload;
    HandlerContext ctx{in, key, **tx, *Env::Default(), payload};
    for (int i = 0; i < n; ++i) {
      const std::string id = "P" + std::to_string(i);
      ASSERT_TRUE(ctx.Emit({payments::kTopicPoints, "points:" + id,
                            payments::ToPayload(payments::PointsGrant{id, payments::kScenePay, "U1", 5}), {}})
                      .ok());
    }
    ASSERT_TRUE((*tx)->Commit().ok());
  }

  std::string Config(const std::string& outbox) {
    const std::string path = dir_.File("run.toml");
    std::ofstream(path) << "[broker]\nurl = \"queue:" << dir_.File("q.db") << "\"\n"
                        << "[store]\nurl = \"sqlite:" << dir_.File("s.db") << "\"\n"
                        << "[service]\nhttp_listen = \"127.0.0.1:0\"\nlog_decisions = false\n"
                        << "[outbox]\n" << outbox
                        << "[[consumer]]\ngroup = \"payments\"\nbatch_size = 16\nmax_linger_ms = 0\n"
                        << "handlers = [\"payments\"]\n";
    return path;
  }

  // Reads the log until the relay has published `published` rows and the
  // consumer applied as many first deliveries.
  void WaitUntilRelayedAndApplied(RunningIdem& run, int64_t published) {
    int64_t relayed = 0, applied = 0;
    const auto last = run.WaitFor([&](const nlohmann::json& j) {
      if (j.value("event", "") == "outbox_relay") relayed += j.value("published", 0);
      if (j.value("event", "") == "batch") applied += j.value("first", 0);
      return relayed == published && applied == published;
    });
    ASSERT_NE(last.value("event", ""), "eof") << run.Output();
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(OutboxRelayServiceTest, RelaysEmittedRowsToAConsumerGroupAndCountsThemOnMetrics) {
  EmitGrants(kGrants);
  // One row held by a relay elsewhere (claimed far ahead) and one given up on:
  // the gauges must show both.
  ASSERT_TRUE(store_->ExecScript("UPDATE idem_outbox SET due_ms = 9000000000000 WHERE msg_key = 'points:P0';"
                                 "UPDATE idem_outbox SET state = 'DEAD' WHERE msg_key = 'points:P1'")
                  .ok());
  RunningIdem run({"run", "--config", Config("relay = true\ninterval_ms = 20\nbatch = 8\n")});
  const auto listening = run.WaitForEvent("http_listening");
  ASSERT_EQ(listening.value("event", ""), "http_listening") << run.Output();
  WaitUntilRelayedAndApplied(run, kGrants - 2);

  httplib::Client client("127.0.0.1", listening.value("port", 0));
  auto res = client.Get("/metrics");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  const std::string scrape = res->body;
  auto ready = client.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200) << ready->body;
  EXPECT_NE(ready->body.find("\"outbox_relay\":\"ok\""), std::string::npos) << ready->body;
  EXPECT_EQ(UnlabelledSample(scrape, "idem_outbox_published_total"), kGrants - 2) << scrape;
  EXPECT_EQ(UnlabelledSample(scrape, "idem_outbox_pending_messages"), 1) << scrape;
  EXPECT_GT(UnlabelledSample(scrape, "idem_outbox_oldest_pending_age_seconds"), 0) << scrape;
  EXPECT_EQ(UnlabelledSample(scrape, "idem_outbox_dead_messages"), 1) << scrape;
  EXPECT_EQ(UnlabelledSample(scrape, "idem_outbox_publish_failures_total"), 0) << scrape;
  EXPECT_EQ(UnlabelledSample(scrape, "idem_outbox_relay_failures_total"), 0) << scrape;

  run.Signal(SIGTERM);
  EXPECT_EQ(run.Wait(), 0) << run.Output();
  bool relay_stopped = false;
  for (const auto& j : run.lines())
    if (j.value("event", "") == "outbox_relay_stopped") {
      relay_stopped = true;
      EXPECT_EQ(j.value("reason", ""), "stop requested");
      EXPECT_EQ(j.value("published", 0), kGrants - 2);
    }
  EXPECT_TRUE(relay_stopped) << run.Output();
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM pay_points"), kGrants - 2);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_outbox WHERE state = 'SENT'"), kGrants - 2);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_records WHERE status = 'SUCCEEDED'"), kGrants - 2);
}

TEST_F(OutboxRelayServiceTest, UntilIdleEndsOnceTheWorkersEndedAndNothingIsDue) {
  EmitGrants(kGrants);
  RunningIdem run({"run", "--until-idle", "--config", Config("relay = true\ninterval_ms = 20\n")});
  EXPECT_EQ(run.Wait(), 0) << run.Output();
  int64_t published = 0;
  for (const auto& j : run.lines())
    if (j.value("event", "") == "outbox_relay") published += j.value("published", 0);
  EXPECT_EQ(published, kGrants) << run.Output();
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_outbox WHERE state = 'PENDING'"), 0);
}

TEST_F(OutboxRelayServiceTest, WithoutTheRelayNothingIsPublished) {
  EmitGrants(3);
  RunningIdem run({"run", "--until-idle", "--config", Config("relay = false\n")});
  EXPECT_EQ(run.Wait(), 0) << run.Output();
  for (const auto& j : run.lines()) EXPECT_NE(j.value("event", ""), "outbox_relay_started");
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_outbox WHERE state = 'PENDING'"), 3);
}

}  // namespace
}  // namespace idem
