// `idem console --config F` serves the console on its own port (no metrics)
// until SIGTERM; `idem run` with [console] needs an HTTP port to serve it on.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <fstream>

#include "console/secret_hash.h"
#include "idem/embedded_queue.h"
#include "service/running_idem.h"
#include "testing/test_util.h"

namespace idem::console {
namespace {

std::string WriteConfig(const idem::testing::TempDir& dir, const std::string& service) {
  const std::string path = dir.File("run.toml");
  std::ofstream(path) << "[broker]\nurl = \"queue:" << dir.File("q.db") << "\"\n[store]\nurl = \"sqlite:"
                      << dir.File("s.db") << "\"\n" << service << "[console]\n[[console.operator]]\nname = \"alice\"\n"
                      << "role = \"operator\"\nsecret_hash = \"" << HashSecret("alice-secret", kMinHashIterations).value()
                      << "\"\n[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\n";
  return path;
}

TEST(ConsoleCommandTest, ServesTheConsoleAloneUntilSigterm) {
  idem::testing::TempDir dir;
  ASSERT_TRUE(EmbeddedQueue::Open(dir.File("q.db"), {}, Env::Default()).ok());
  idem::testing::RunningIdem console({"console", "--config", WriteConfig(dir, ""), "--listen", "127.0.0.1:0"});
  const auto listening = console.WaitForEvent("http_listening");
  ASSERT_EQ(listening.value("event", ""), "http_listening") << console.Output();
  httplib::Client client("127.0.0.1", listening.value("port", 0));
  auto login = client.Get("/console/login");
  ASSERT_TRUE(login);
  EXPECT_EQ(login->status, 200);
  EXPECT_NE(login->body.find("name=\"secret\""), std::string::npos);
  EXPECT_EQ(client.Get("/console/")->status, 303);
  EXPECT_EQ(client.Get("/metrics")->status, 404) << "the console alone serves no metrics";
  console.Signal(SIGTERM);
  EXPECT_EQ(console.Wait(), 0) << console.Output();
}

TEST(ConsoleCommandTest, RunWithAConsoleButNoHttpPortIsAConfigurationError) {
  idem::testing::TempDir dir;
  auto r = idem::testing::RunProcess({IDEM_CLI_PATH, "run", "--config", WriteConfig(dir, "")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("http_listen"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace idem::console
