// `idem run` started while its store cannot be reached: it retries with backoff
// up to [service] startup_timeout_ms, logging each attempt, with /readyz
// answering 503 meanwhile; it gives up with exit 1 and what to do, or it
// starts once the server answers and then processes what the queue holds.
// Synchronised on the service's log lines and on /readyz, never on time.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "idem/embedded_queue.h"
#include "idem/store.h"
#include "payments/events.h"
#include "integration/run_idem.h"
#include "service/running_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using testing::Idem;
using testing::RunningIdem;
using testing::TempDir;

// A loopback port nothing listens on (the kernel picked it free; it is closed again).
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    close(fd);
    return 0;
  }
  close(fd);
  return ntohs(a.sin_port);
}

std::string PgUrl(int port) { return "postgresql://idem@127.0.0.1:" + std::to_string(port) + "/idem_test"; }

std::string Config(const TempDir& dir, const std::string& store_url, int64_t startup_timeout_ms) {
  const std::string path = dir.File("run.toml");
  std::ofstream(path) << "[broker]\nurl = \"queue:" << dir.File("q.db") << "\"\n"
                      << "[store]\nurl = \"" << store_url << "\"\n"
                      << "setup_sql = \"INSERT INTO pay_accounts (user_id, balance_cents, opening_cents) "
                         "VALUES ('U1', 0, 0) ON CONFLICT DO NOTHING\"\n"
                      << "[service]\nhttp_listen = \"127.0.0.1:0\"\nlog_decisions = false\n"
                      << "startup_timeout_ms = " << startup_timeout_ms << "\n"
                      << "[[consumer]]\ngroup = \"payments\"\nbatch_size = 16\nmax_linger_ms = 0\n"
                      << "handlers = [\"payments\"]\n";
  return path;
}

bool HasEvent(const RunningIdem& run, const std::string& event) {
  for (const auto& j : run.lines())
    if (j.value("event", "") == event) return true;
  return false;
}

TEST(StartupWaitTest, AStoreThatNeverAnswersIsRetriedThenExit1WithWhatToDo) {
#ifndef IDEM_WITH_POSTGRES
  GTEST_SKIP() << "this build has no PostgreSQL store (IDEM_WITH_POSTGRES=OFF)";
#endif
  TempDir dir;
  const int port = FreePort();
  ASSERT_GT(port, 0);
  RunningIdem run({"run", "--config", Config(dir, PgUrl(port), /*startup_timeout_ms=*/1500)});
  const auto waiting = run.WaitForEvent("start_waiting");
  ASSERT_EQ(waiting.value("event", ""), "start_waiting") << run.Output();
  EXPECT_EQ(waiting.value("level", ""), "warn") << waiting.dump();
  EXPECT_EQ(waiting.value("attempt", 0), 1);
  EXPECT_EQ(waiting.value("startup_timeout_ms", 0), 1500);
  EXPECT_NE(waiting.value("error", "").find("cannot connect to PostgreSQL"), std::string::npos) << waiting.dump();

  const auto failed = run.WaitForEvent("start_failed");
  ASSERT_EQ(failed.value("event", ""), "start_failed") << run.Output();
  const std::string error = failed.value("error", "");
  EXPECT_NE(error.find("Unavailable: "), std::string::npos) << error;
  EXPECT_NE(error.find("cannot connect to PostgreSQL"), std::string::npos) << error;
  EXPECT_NE(error.find("ms ([service] startup_timeout_ms): start the server or fix its address"), std::string::npos)
      << error;
  EXPECT_NE(error.find("Restart=on-failure"), std::string::npos) << error;
  EXPECT_GE(failed.value("attempts", 0), 2) << "retried before giving up";
  EXPECT_EQ(run.Wait(), 1) << run.Output();
  EXPECT_FALSE(HasEvent(run, "started")) << run.Output();
}

// Only an unreachable server is waited for: a wrong store URL is a configuration
// error (exit 2) and a store SQLite cannot open (here a folder) fails at once
// (exit 1), however long startup_timeout_ms is.
TEST(StartupWaitTest, AConfigErrorOrAStoreThatCannotBeOpenedIsNotWaitedFor) {
  TempDir dir;
  // Refused while the file is read, at the URL's position, before anything starts.
  const auto bad_url = Idem(
      {"run", "--config", Config(dir, "sqlite:" + dir.File("s.db") + "?synchronous=maybe", /*startup_timeout_ms=*/600'000)});
  EXPECT_EQ(bad_url.exit_code, 2) << bad_url.out << bad_url.err;
  EXPECT_NE(bad_url.err.find("run.toml:4:7: [store] url: unknown store URL option 'synchronous=maybe': use "
                             "synchronous=full (default) or synchronous=normal"),
            std::string::npos)
      << bad_url.err;
  EXPECT_EQ(bad_url.out.find("start_waiting"), std::string::npos) << bad_url.out;

  std::filesystem::create_directory(dir.File("store-folder"));
  RunningIdem folder({"run", "--config", Config(dir, "sqlite:" + dir.File("store-folder"), /*startup_timeout_ms=*/600'000)});
  const auto failed = folder.WaitForEvent("start_failed");
  ASSERT_EQ(failed.value("event", ""), "start_failed") << folder.Output();
  EXPECT_EQ(folder.Wait(), 1) << folder.Output();
  EXPECT_FALSE(HasEvent(folder, "start_waiting")) << folder.Output();
}

// The PostgreSQL of scripts/servers/postgres.sh, but a private one: its own
// port, folder and env file, so the shared test server is not touched.
class PrivatePostgres {
 public:
  // The folder is under /tmp itself: the server runs as user postgres, which
  // must reach it. `env_file` receives the URL line the script writes.
  PrivatePostgres(int port, const std::string& env_file)
      : env_("IDEM_TEST_POSTGRES_PORT=" + std::to_string(port) + " IDEM_TEST_SERVERS_DIR=/tmp/idem-startup-wait-" +
             std::to_string(getpid()) + " IDEM_TEST_SERVERS_ENV=" + env_file + " " + std::string(IDEM_SOURCE_DIR) +
             "/scripts/servers/postgres.sh") {}
  ~PrivatePostgres() {
    if (started_) (void)std::system((env_ + " stop >/dev/null 2>&1").c_str());
  }
  static bool Installed() {
    std::error_code ec;
    for (const auto& v : std::filesystem::directory_iterator("/usr/lib/postgresql", ec))
      if (std::filesystem::exists(v.path() / "bin" / "pg_ctl")) return true;
    return false;
  }
  bool Start() {
    started_ = true;
    return std::system((env_ + " start").c_str()) == 0;
  }

 private:
  std::string env_;
  bool started_ = false;
};

TEST(StartupWaitTest, AStoreThatComesUpDuringTheWaitIsUsedAndTheQueueIsProcessed) {
#ifndef IDEM_WITH_POSTGRES
  GTEST_SKIP() << "this build has no PostgreSQL store (IDEM_WITH_POSTGRES=OFF)";
#endif
  if (!PrivatePostgres::Installed()) GTEST_SKIP() << "the PostgreSQL server is not installed (scripts/install-deps.sh)";
  TempDir dir;
  constexpr int kTopUps = 40;
  {
    auto queue = EmbeddedQueue::Open(dir.File("q.db"), {}, Env::Default());
    ASSERT_TRUE(queue.ok()) << queue.status().ToString();
    std::vector<Message> batch;
    for (int i = 0; i < kTopUps; ++i)
      batch.push_back({.topic = payments::kTopicTopUp,
                       .payload = payments::ToPayload(payments::TopUp{"T" + std::to_string(i), "U1", 1})});
    ASSERT_TRUE((*queue)->PublishBatch(batch).ok());
  }
  const int port = FreePort();
  ASSERT_GT(port, 0);
  PrivatePostgres server(port, dir.File("test-servers.env"));
  // A bound far beyond what the test needs: the test waits on events, not on it.
  RunningIdem run({"run", "--config", Config(dir, PgUrl(port), /*startup_timeout_ms=*/600'000)});
  const auto listening = run.WaitForEvent("http_listening");
  ASSERT_EQ(listening.value("event", ""), "http_listening") << run.Output();
  ASSERT_EQ(run.WaitForEvent("start_waiting").value("event", ""), "start_waiting") << run.Output();
  httplib::Client client("127.0.0.1", listening.value("port", 0));
  auto waiting = client.Get("/readyz");
  ASSERT_TRUE(waiting);
  EXPECT_EQ(waiting->status, 503) << waiting->body;
  EXPECT_NE(waiting->body.find("\"starting\""), std::string::npos) << waiting->body;
  EXPECT_NE(waiting->body.find("cannot connect to PostgreSQL"), std::string::npos) << waiting->body;

  ASSERT_TRUE(server.Start()) << "scripts/servers/postgres.sh start failed";
  ASSERT_EQ(run.WaitForEvent("started").value("event", ""), "started") << run.Output();
  int64_t decided = 0;
  run.WaitFor([&](const nlohmann::json& j) {
    if (j.value("event", "") == "batch") decided += j.value("first", 0) + j.value("duplicate", 0);
    return decided == kTopUps;
  });
  ASSERT_EQ(decided, kTopUps) << run.Output();
  auto ready = client.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200) << ready->body;
  run.Signal(SIGTERM);
  EXPECT_EQ(run.Wait(), 0) << run.Output();

  auto store = OpenStore(PgUrl(port), Env::Default());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(testing::QueryInt(**store, "SELECT COUNT(*) FROM pay_account_flows"), kTopUps);
  EXPECT_EQ(testing::QueryInt(**store, "SELECT balance_cents FROM pay_accounts WHERE user_id = 'U1'"), kTopUps);
  EXPECT_EQ(testing::QueryInt(**store, "SELECT COUNT(*) FROM idem_records WHERE status = 'SUCCEEDED'"), kTopUps);
}

}  // namespace
}  // namespace idem
