// Producer-side keys on RabbitMQ: a producer that publishes the same event
// again (`idem publish` run twice, as a retry after an unclear failure) sends
// the same business key both times, in the idem-key header, so a consumer
// deduplicates the copy whoever the producer is.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "idem/broker.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

// Runs `idem ARGS…` without a shell; returns its exit status.
int Idem(std::vector<std::string> args) {
  args.insert(args.begin(), IDEM_CLI_PATH);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(OutboxKeysRabbitTest, IdemPublishSendsTheSameBusinessKeyOnEveryAttempt) {
  const char* base = std::getenv("IDEM_TEST_AMQP_URL");
  if (!base || !*base) GTEST_SKIP() << "IDEM_TEST_AMQP_URL is not set: run scripts/servers/rabbitmq.sh start";
  TempDir dir;
  const std::string url = std::string(base) + "?queue=t.outbox-keys." + std::to_string(::getpid());
  const std::string input = dir.File("events.jsonl");
  std::ofstream(input) << R"({"payment_id":"P7","scene":"PAY","amount":1})" << "\n";
  const std::vector<std::string> publish{"publish", "--queue", url,     "--topic", "points.grant",
                                         "--key-fields", "payment_id,scene", "--input", input, "--quiet"};
  ASSERT_EQ(Idem(publish), 0);
  ASSERT_EQ(Idem(publish), 0) << "the retry";

  auto broker = OpenBroker(url, BrokerOptions{}, Env::Default());
  ASSERT_TRUE(broker.ok()) << broker.status().ToString();
  std::vector<Message> got;
  for (int i = 0; i < 100 && got.size() < 2; ++i) {
    auto batch = (*broker)->source().Poll(10, 100);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    got.insert(got.end(), batch->begin(), batch->end());
  }
  ASSERT_EQ(got.size(), 2u);
  EXPECT_FALSE(got[0].key.empty());
  EXPECT_EQ(got[0].key, got[1].key) << "both attempts carry one business key";
  EXPECT_EQ(got[0].id, got[0].key) << "the AMQP message-id is the business key";
  EXPECT_EQ(got[0].id, got[1].id) << "so a consumer that deduplicates on message-id sees the copy";
}

}  // namespace
}  // namespace idem::testing
