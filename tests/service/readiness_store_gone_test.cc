// The SQLite readiness probe inspects and never creates: a store file deleted
// under a running service stays deleted and /readyz answers 503 saying so
// (before, the probe made a new empty store and answered 200).
// Synchronised on the service's log lines, never on time.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <filesystem>
#include <fstream>

#include "service/running_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

TEST(ReadinessStoreGoneTest, ADeletedStoreFileIsNotRecreatedAndReadyzSays503) {
  testing::TempDir dir;
  const std::string db = dir.File("s.db");
  const std::string config = dir.File("run.toml");
  std::ofstream(config) << "[broker]\nurl = \"queue:" << dir.File("q.db") << "\"\n"
                        << "[store]\nurl = \"sqlite:" << db << "\"\n"
                        << "[service]\nhttp_listen = \"127.0.0.1:0\"\n"
                        << "[[consumer]]\ngroup = \"payments\"\nhandlers = [\"payments\"]\n";
  testing::RunningIdem run({"run", "--config", config});
  const auto listening = run.WaitForEvent("http_listening");
  ASSERT_EQ(listening.value("event", ""), "http_listening") << run.Output();
  bool started = false;  // "started" may come before or after "http_listening"
  for (const auto& j : run.lines()) started |= j.value("event", "") == "started";
  if (!started) ASSERT_EQ(run.WaitForEvent("started").value("event", ""), "started") << run.Output();
  httplib::Client client("127.0.0.1", listening.value("port", 0));
  auto ready = client.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200) << ready->body;

  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
  auto gone = client.Get("/readyz");
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->status, 503) << gone->body;
  EXPECT_NE(gone->body.find("the SQLite store '" + db + "' does not exist"), std::string::npos) << gone->body;
  EXPECT_FALSE(std::filesystem::exists(db)) << "the probe created a new store file";
  auto scrape = client.Get("/metrics");  // probes too
  ASSERT_TRUE(scrape);
  EXPECT_NE(scrape->body.find("idem_up{dependency=\"store\"} 0"), std::string::npos) << scrape->body;
  EXPECT_FALSE(std::filesystem::exists(db)) << "the /metrics probe created a new store file";
  run.Signal(SIGTERM);
  EXPECT_EQ(run.Wait(), 0) << run.Output();
}

}  // namespace
}  // namespace idem
