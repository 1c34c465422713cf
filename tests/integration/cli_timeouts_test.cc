// Every connection the command line makes has a timeout and, when it runs out
// or the server refuses, the command ends with exit 1 and a message naming the
// URL, what it waited for and what to do: it never waits silently.
#include <gtest/gtest.h>

#include "integration/run_idem.h"
#include "testing/silent_listener.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using namespace idem::testing;

// Skips when this build leaves out the backend the URL needs.
#define SKIP_WITHOUT_BACKEND(r)                                                            \
  if ((r).err.find("this build leaves out") != std::string::npos) GTEST_SKIP() << (r).err

TEST(CliTimeouts, DemoWithAStoppedRedisStopsAndSaysSo) {
  const std::string url = "redis://127.0.0.1:" + std::to_string(ClosedPort());
  ProcessResult r = Idem({"demo", "--only", "001", "--messages", "10", "--redis-url", url});
  SKIP_WITHOUT_BACKEND(r);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("--redis-url " + url + " does not answer"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("within the connect timeout of"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("start Redis there, correct the URL, or leave out --redis-url"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "") << "no scenario ran";
}

TEST(CliTimeouts, DemoWithARedisThatNeverAnswersGivesUpAfterTheCommandTimeout) {
  SilentListener hung;  // accepts the connection, never replies to PING
  ASSERT_NE(hung.port(), 0);
  const std::string url = "redis://127.0.0.1:" + std::to_string(hung.port());
  ProcessResult r = Idem({"demo", "--only", "001", "--messages", "10", "--redis-url", url});
  SKIP_WITHOUT_BACKEND(r);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(url), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no answer within the command timeout of"), std::string::npos) << r.err;
}

TEST(CliTimeouts, DemoWithAPostgresThatNeverAnswersGivesUpAfterConnectTimeout) {
  SilentListener hung;
  ASSERT_NE(hung.port(), 0);
  const std::string url = "postgresql://idem@127.0.0.1:" + std::to_string(hung.port()) + "/idem?connect_timeout=2";
  ProcessResult r = Idem({"demo", "--only", "001", "--messages", "10", "--store-url", url});
  SKIP_WITHOUT_BACKEND(r);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("cannot connect to PostgreSQL (127.0.0.1:" + std::to_string(hung.port())), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("within connect_timeout=2 s"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace idem
