// /metrics scraped during a run agrees with what the database holds, passes
// `promtool check metrics`, and /readyz flips when the store goes away and
// comes back. Synchronised on the service's log lines, never on time.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "idem/embedded_queue.h"
#include "payments/events.h"
#include "payments/schema.h"
#include "service/running_idem.h"
#include "service/top_ups.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using testing::RunningIdem;
using testing::TempDir;

constexpr int kTopUps = 300;
constexpr int kResent = 30;  // published twice

// The value of the sample `name` whose labels include every `labels` pair; -1 when absent.
double Sample(const std::string& scrape, const std::string& name, const std::vector<std::string>& labels) {
  std::istringstream in(scrape);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name + "{", 0) != 0 && line.rfind(name + " ", 0) != 0) continue;
    bool all = true;
    for (const std::string& l : labels) all &= line.find(l) != std::string::npos;
    if (all) return std::stod(line.substr(line.rfind(' ') + 1));
  }
  return -1;
}

void Publish(const TempDir& dir) {
  auto store = OpenSqliteStore(dir.File("s.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(payments::CreateSchema(**store, payments::SchemaVariant::kGuarded).ok());
  ASSERT_TRUE(payments::SeedData(**store, {{"U1", 0}}, {}, {}).ok());
  auto queue = EmbeddedQueue::Open(dir.File("q.db"), {}, Env::Default());
  ASSERT_TRUE(queue.ok());
  std::vector<Message> batch;
  for (int i = 0; i < kTopUps; ++i) {
    Message m;
    m.topic = payments::kTopicTopUp;
    m.payload = payments::ToPayload(payments::TopUp{"T" + std::to_string(i), "U1", 1});
    batch.push_back(m);
    if (i < kResent) batch.push_back(m);
  }
  ASSERT_TRUE((*queue)->PublishBatch(batch).ok());
}

// The schema, without a message: a consumer that starts idle.
void CreateStore(const TempDir& dir) {
  testing::CreateTopUpStore(dir.File("s.db"));
  ASSERT_TRUE(EmbeddedQueue::Open(dir.File("q.db"), {}, Env::Default()).ok());
}

void PublishTopUps(const TempDir& dir, int n) { testing::PublishTopUps(dir.File("q.db"), n); }

QueueStats QueueNow(const TempDir& dir) {
  EmbeddedQueueOptions inspect;
  inspect.create_if_missing = false;  // only reads: no schema statements beside the workers' polls
  auto queue = EmbeddedQueue::Open(dir.File("q.db"), inspect, Env::Default());
  EXPECT_TRUE(queue.ok());
  auto stats = queue.ok() ? (*queue)->Stats() : Result<QueueStats>(queue.status());
  EXPECT_TRUE(stats.ok());
  return stats.ok() ? *stats : QueueStats{};
}

std::string Config(const TempDir& dir) {
  const std::string path = dir.File("run.toml");
  std::ofstream(path) << "[broker]\nurl = \"queue:" << dir.File("q.db") << "\"\n"
                      << "[store]\nurl = \"sqlite:" << dir.File("s.db") << "\"\n"
                      << "[service]\nhttp_listen = \"127.0.0.1:0\"\nlog_decisions = false\n"
                      << "[[consumer]]\ngroup = \"payments\"\nworkers = 2\nbatch_size = 16\nmax_linger_ms = 0\n"
                      << "handlers = [\"payments\"]\n";
  return path;
}

class MetricsHttpTest : public ::testing::Test {
 protected:
  void Start(bool publish = true) {
    if (publish) Publish(dir_);
    else CreateStore(dir_);
    run_ = std::make_unique<RunningIdem>(std::vector<std::string>{"run", "--config", Config(dir_)});
    // The port opens before the store and broker are (idem run waits for them,
    // answering /readyz 503 "starting"); the workers declare their series when
    // they open. So the tests talk to it once it says it started.
    const auto started = run_->WaitForEvent("started");
    ASSERT_EQ(started.value("event", ""), "started") << run_->Output();
    int port = 0;
    for (const auto& j : run_->lines())
      if (j.value("event", "") == "http_listening") port = j.value("port", 0);
    ASSERT_NE(port, 0) << run_->Output();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port);
  }
  // Reads batch lines until every published copy has been decided.
  void WaitUntilAllDecided() {
    int64_t decided = 0;
    for (const auto& j : run_->lines())  // batch lines read while waiting for something else count too
      if (j.value("event", "") == "batch") decided += j.value("first", 0) + j.value("duplicate", 0);
    if (decided == kTopUps + kResent) return;
    const auto last = run_->WaitFor([&](const nlohmann::json& j) {
      if (j.value("event", "") == "batch") decided += j.value("first", 0) + j.value("duplicate", 0);
      return decided == kTopUps + kResent;
    });
    ASSERT_EQ(last.value("event", ""), "batch") << run_->Output();
  }
  void Stop() {
    run_->Signal(SIGTERM);
    EXPECT_EQ(run_->Wait(), 0) << run_->Output();
  }

  TempDir dir_;
  std::unique_ptr<RunningIdem> run_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(MetricsHttpTest, ScrapeAgreesWithTheDatabaseAndPassesPromtool) {
  Start();
  WaitUntilAllDecided();
  auto health = client_->Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  auto res = client_->Get("/metrics");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  const std::string scrape = res->body;
  Stop();

  auto store = OpenSqliteStore(dir_.File("s.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok());
  const int64_t ledger = testing::QueryInt(**store, "SELECT COUNT(*) FROM pay_account_flows");
  const int64_t succeeded = testing::QueryInt(**store, "SELECT COUNT(*) FROM idem_records WHERE status = 'SUCCEEDED'");
  EXPECT_EQ(ledger, kTopUps);
  const std::vector<std::string> topups{"group=\"payments\"", "handler=\"account.topup\""};
  auto with = [&](std::string outcome) {
    auto l = topups;
    l.push_back("outcome=\"" + outcome + "\"");
    return l;
  };
  EXPECT_EQ(Sample(scrape, "idem_messages_total", with("first")), ledger) << scrape;
  EXPECT_EQ(Sample(scrape, "idem_messages_total", with("first")), succeeded);
  EXPECT_EQ(Sample(scrape, "idem_messages_total", with("duplicate")), kResent) << scrape;
  EXPECT_EQ(Sample(scrape, "idem_handler_duration_seconds_count", topups), ledger) << scrape;
  EXPECT_EQ(Sample(scrape, "idem_batch_size_messages_sum", {"group=\"payments\""}), kTopUps + kResent) << scrape;
  EXPECT_EQ(Sample(scrape, "idem_dead_letter_messages", {}), 0) << scrape;
  EXPECT_EQ(Sample(scrape, "idem_up", {"dependency=\"store\""}), 1) << scrape;
  EXPECT_EQ(Sample(scrape, "idem_up", {"dependency=\"broker\""}), 1) << scrape;

  // The exposition is what Prometheus expects: names, units, types, help.
  const std::string file = dir_.File("scrape.txt");
  std::ofstream(file) << scrape;
  const std::string cmd = std::string(IDEM_PROMTOOL) + " check metrics < " + file + " 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[512];
  while (fgets(buf, sizeof buf, p)) out += buf;
  EXPECT_EQ(pclose(p), 0) << out;
  EXPECT_EQ(out, "") << "promtool check metrics found problems";
}

TEST_F(MetricsHttpTest, ReadinessFlipsWhenTheStoreGoesAwayAndComesBack) {
  Start();
  WaitUntilAllDecided();
  auto ready = client_->Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200) << ready->body;

  // The store file replaced by something SQLite cannot open: a store that is gone.
  const std::string db = dir_.File("s.db"), aside = dir_.File("s.db.aside");
  std::filesystem::rename(db, aside);
  std::filesystem::create_directory(db);
  auto gone = client_->Get("/readyz");
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->status, 503) << gone->body;
  EXPECT_NE(gone->body.find("\"broker\":\"ok\""), std::string::npos) << gone->body;
  EXPECT_NE(gone->body.find("cannot open the store"), std::string::npos) << gone->body;
  auto scrape = client_->Get("/metrics");
  ASSERT_TRUE(scrape);
  EXPECT_EQ(Sample(scrape->body, "idem_up", {"dependency=\"store\""}), 0) << scrape->body;

  std::filesystem::remove(db);
  std::filesystem::rename(aside, db);
  auto back = client_->Get("/readyz");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->status, 200) << back->body;
  Stop();
}

TEST_F(MetricsHttpTest, EverySeriesOfTheConfiguredHandlersIsExportedAtZeroBeforeTheFirstMessage) {
  Start(/*publish=*/false);
  auto res = client_->Get("/metrics");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  const std::string scrape = res->body;
  // Every handler of the "payments" set, every outcome: rate() and the alerts see the first message.
  for (const char* handler : {payments::kTopicPaySuccess, payments::kTopicRefund, payments::kTopicShip,
                              payments::kTopicFinish, payments::kTopicTopUp})
    for (const char* outcome :
         {"first", "duplicate", "filtered", "conflict", "retried", "dead_lettered", "released", "in_flight"})
      EXPECT_EQ(Sample(scrape, "idem_messages_total",
                       {"group=\"payments\"", "handler=\"" + std::string(handler) + "\"",
                        "outcome=\"" + std::string(outcome) + "\""}),
                0)
          << handler << " " << outcome << "\n"
          << scrape;
  const std::vector<std::string> topups{"group=\"payments\"", "handler=\"account.topup\""};
  EXPECT_EQ(Sample(scrape, "idem_handler_duration_seconds_count", topups), 0) << scrape;
  EXPECT_EQ(Sample(scrape, "idem_batch_duration_seconds_count", {"group=\"payments\""}), 0) << scrape;
  EXPECT_EQ(Sample(scrape, "idem_batch_failures_total", {"group=\"payments\""}), 0) << scrape;
  EXPECT_EQ(Sample(scrape, "idem_batch_careful_reruns_total", {"group=\"payments\""}), 0) << scrape;
  EXPECT_EQ(Sample(scrape, "idem_oldest_in_flight_age_seconds", {"group=\"payments\""}), 0) << scrape;
  EXPECT_EQ(Sample(scrape, "idem_backlog_messages", {"group=\"payments\""}), 0) << scrape;
  EXPECT_GT(Sample(scrape, "idem_last_progress_timestamp_seconds", {"group=\"payments\""}), 0) << scrape;
  Stop();
}

TEST_F(MetricsHttpTest, ProgressTimestampMovesWhenABatchSettles) {
  Start(/*publish=*/false);
  auto idle = client_->Get("/metrics");
  ASSERT_TRUE(idle);
  const double started = Sample(idle->body, "idem_last_progress_timestamp_seconds", {"group=\"payments\""});
  ASSERT_GT(started, 0) << idle->body;
  const int64_t before_publish_ms = Env::Default()->NowMs();
  PublishTopUps(dir_, 5);
  const auto batch = run_->WaitForEvent("batch");
  ASSERT_EQ(batch.value("event", ""), "batch") << run_->Output();
  auto after = client_->Get("/metrics");
  ASSERT_TRUE(after);
  const double progressed = Sample(after->body, "idem_last_progress_timestamp_seconds", {"group=\"payments\""});
  // Set when the consumer started, then again when the batch settled — after the messages were published.
  EXPECT_LE(std::llround(started * 1000), before_publish_ms) << idle->body;
  EXPECT_GE(std::llround(progressed * 1000), before_publish_ms) << after->body;
  EXPECT_GT(progressed, started);
  Stop();
}

// Another connection holds a write transaction on the store: the workers and
// the readiness probe wait for its lock, and the HTTP port still answers —
// from what the last probe found and what the workers published — with the
// backlog the queue holds and the batch a worker is stuck on.
TEST_F(MetricsHttpTest, MetricsAndReadinessAnswerWhileAStoreTransactionIsStuck) {
  Start(/*publish=*/false);
  auto ready = client_->Get("/readyz");
  ASSERT_TRUE(ready);
  ASSERT_EQ(ready->status, 200) << ready->body;

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir_.File("s.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  constexpr int kWaiting = 100;
  PublishTopUps(dir_, kWaiting);
  // Both workers (batches of 16) have taken a batch and wait for the store's lock.
  constexpr int kHeld = 2 * 16;
  QueueStats q;
  do q = QueueNow(dir_);
  while (q.in_flight != kHeld && !::testing::Test::HasFailure());
  ASSERT_EQ(q.ready, kWaiting - kHeld);

  auto scrape = client_->Get("/metrics");
  ASSERT_TRUE(scrape) << "no answer from /metrics while the store is locked";
  EXPECT_EQ(scrape->status, 200);
  EXPECT_EQ(Sample(scrape->body, "idem_backlog_messages", {"group=\"payments\""}), kWaiting - kHeld) << scrape->body;
  EXPECT_EQ(Sample(scrape->body, "idem_messages_total",
                   {"group=\"payments\"", "handler=\"account.topup\"", "outcome=\"first\""}),
            0);
  EXPECT_GE(Sample(scrape->body, "idem_oldest_in_flight_age_seconds", {"group=\"payments\""}), 0) << scrape->body;
  auto readyz = client_->Get("/readyz");
  ASSERT_TRUE(readyz) << "no answer from /readyz while the store is locked";
  // A lock someone holds is not a store that is down.
  EXPECT_EQ(readyz->status, 200) << readyz->body;
  EXPECT_NE(readyz->body.find("\"store\":\"ok\""), std::string::npos) << readyz->body;
  auto health = client_->Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);

  ASSERT_EQ(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  Stop();
}

}  // namespace
}  // namespace idem

namespace idem {
namespace {

// Redis that is not there, with the fail-open policy: the database guard alone
// decides, every effect still lands once, and the log and /metrics say the
// filter is degraded.
TEST_F(MetricsHttpTest, UnreachableRedisFailOpenIsLoggedAndExported) {
#ifndef IDEM_WITH_REDIS
  GTEST_SKIP() << "this build has no Redis fast filter (IDEM_WITH_REDIS=OFF)";
#endif
  Publish(dir_);
  const std::string path = dir_.File("redis.toml");
  // Port 1 on the loopback: nothing listens there, so every connection is refused at once.
  std::ofstream(path) << "[broker]\nurl = \"queue:" << dir_.File("q.db") << "\"\n"
                      << "[store]\nurl = \"sqlite:" << dir_.File("s.db") << "\"\n"
                      << "[fast_filter]\nurl = \"redis://127.0.0.1:1\"\noutage_policy = \"open\"\n"
                      << "[service]\nhttp_listen = \"127.0.0.1:0\"\nlog_decisions = false\n"
                      << "[[consumer]]\ngroup = \"payments\"\nbatch_size = 16\nmax_linger_ms = 0\n"
                      << "handlers = [\"payments\"]\n";
  run_ = std::make_unique<RunningIdem>(std::vector<std::string>{"run", "--config", path});
  const auto listening = run_->WaitForEvent("http_listening");
  ASSERT_EQ(listening.value("event", ""), "http_listening") << run_->Output();
  client_ = std::make_unique<httplib::Client>("127.0.0.1", listening.value("port", 0));
  const auto degraded = run_->WaitForEvent("fast_filter_degraded");
  ASSERT_EQ(degraded.value("policy", ""), "open") << run_->Output();
  WaitUntilAllDecided();
  auto scrape = client_->Get("/metrics");
  ASSERT_TRUE(scrape);
  EXPECT_EQ(Sample(scrape->body, "idem_fast_filter_degraded", {"group=\"payments\"", "policy=\"open\""}), 1)
      << scrape->body;
  Stop();
  auto store = OpenSqliteStore(dir_.File("s.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(testing::QueryInt(**store, "SELECT COUNT(*) FROM pay_account_flows"), kTopUps);
  EXPECT_EQ(testing::QueryInt(**store, "SELECT balance_cents FROM pay_accounts WHERE user_id = 'U1'"), kTopUps);
}

}  // namespace
}  // namespace idem
