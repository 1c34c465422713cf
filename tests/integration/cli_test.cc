// The idem command line, run as a user would: bad input gets a clear error and a
// non-zero exit, nothing is lost (rejected lines are parked byte-exact), and the
// terminal-queue console lists, shows, replays and purges.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "idem/embedded_queue.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using namespace idem::testing;

ProcessResult Idem(std::vector<std::string> args, const std::string& input = "") {
  args.insert(args.begin(), IDEM_CLI_PATH);
  return RunProcess(args, input);
}

class CliTest : public ::testing::Test {
 protected:
  std::string Queue() const { return dir_.File("q.db"); }
  TempDir dir_;
};

TEST_F(CliTest, HelpTeachesEveryCommand) {
  for (std::vector<std::string> args : {std::vector<std::string>{"--help"}, {"publish", "--help"},
                                        {"dlq", "--help"}, {"dlq", "replay", "--help"}, {"queue", "stats", "--help"}}) {
    ProcessResult r = Idem(args);
    EXPECT_EQ(r.exit_code, 0) << args[0];
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << r.out;
  }
  EXPECT_NE(Idem({"publish", "--help"}).out.find("--key-fields"), std::string::npos);
}

TEST_F(CliTest, MissingOptionOrUnknownCommandFailsWithAClearMessage) {
  ProcessResult r = Idem({"publish", "--topic", "pay"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--queue"), std::string::npos) << r.err;
  r = Idem({"frobnicate"});
  EXPECT_NE(r.exit_code, 0);
}

TEST_F(CliTest, PublishParksEveryBadLineWithItsReasonAndKeepsTheGoodOnes) {
  const std::string invalid_utf8 = "{\"payment_id\":\"P3\",\"note\":\"\xff\xfe\"}";
  const std::string input = std::string("{\"payment_id\":\"P1\",\"amount\":5}\n") +
                            "{\"payment_id\":\"x'); DROP TABLE idem_queue; --\",\"amount\":1}\n" +
                            "this is not json\n" +
                            "{\"amount\":5}\n" +
                            invalid_utf8 + "\n" +
                            "{\"payment_id\":\"a\\u0000b\",\"amount\":1}\n" +
                            "{\"payment_id\":\"P9\",\"blob\":\"" + std::string(300, 'x') + "\"}\n" +
                            "\n";
  ProcessResult r = Idem({"publish", "--queue", Queue(), "--topic", "pay", "--key-fields", "payment_id",
                          "--max-payload-bytes", "200"},
                         input);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("published 2"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("line 3: payload is not valid JSON"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 4: no idempotency key: payload has no field 'payment_id'"), std::string::npos);
  EXPECT_NE(r.err.find("line 6: the idempotency key contains a NUL byte"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 7: payload is 329 bytes, over the limit of 200"), std::string::npos) << r.err;

  auto q = EmbeddedQueue::Open(Queue(), {}, Env::Default());
  ASSERT_TRUE(q.ok());
  auto stats = (*q)->Stats();
  EXPECT_EQ(stats->ready, 2);
  EXPECT_EQ(stats->dead, 5);
  auto dead = (*q)->ListDead(10);
  ASSERT_TRUE(dead.ok());
  ASSERT_EQ(dead->size(), 5u);
  EXPECT_EQ((*dead)[2].message.payload, invalid_utf8) << "stored byte-exact";
  EXPECT_NE((*dead)[2].reason.find("line 5"), std::string::npos);
  auto ready = (*q)->Poll(10, 0);
  ASSERT_TRUE(ready.ok());
  ASSERT_EQ(ready->size(), 2u);
  EXPECT_EQ((*ready)[1].key, "x'); DROP TABLE idem_queue; --") << "SQL metacharacters are just bytes";
}

TEST_F(CliTest, DlqListShowReplayPurge) {
  ProcessResult r = Idem({"publish", "--queue", Queue(), "--topic", "pay", "--key-fields", "id"},
                         "{\"id\":\"1\"}\nbroken\n{\"nope\":1}\n");
  ASSERT_EQ(r.exit_code, 1);

  r = Idem({"dlq", "list", "--queue", Queue(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<nlohmann::json> rows;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) rows.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(rows.size(), 2u);
  const int64_t first_id = rows[0]["id"].get<int64_t>();
  EXPECT_NE(rows[0]["reason"].get<std::string>().find("not valid JSON"), std::string::npos);

  r = Idem({"dlq", "show", "--queue", Queue(), std::to_string(first_id)});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("broken"), std::string::npos);
  EXPECT_NE(r.out.find("reason"), std::string::npos);

  r = Idem({"dlq", "show", "--queue", Queue(), "424242"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no dead letter with id 424242"), std::string::npos);

  r = Idem({"dlq", "replay", "--queue", Queue()});
  EXPECT_EQ(r.exit_code, 2) << "neither ids nor --all";
  r = Idem({"dlq", "replay", "--queue", Queue(), std::to_string(first_id), "--actor", "alice"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("replayed 1"), std::string::npos);

  r = Idem({"queue", "stats", "--queue", Queue(), "--json"});
  ASSERT_EQ(r.exit_code, 0);
  auto stats = nlohmann::json::parse(r.out);
  EXPECT_EQ(stats["ready"], 2);
  EXPECT_EQ(stats["dead"], 1);

  r = Idem({"dlq", "purge", "--queue", Queue(), "--all"});
  EXPECT_EQ(r.exit_code, 2) << "purging everything needs --yes";
  r = Idem({"dlq", "purge", "--queue", Queue(), "--all", "--yes", "--actor", "bob"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("purged 1"), std::string::npos);
  r = Idem({"dlq", "list", "--queue", Queue()});
  EXPECT_NE(r.out.find("empty"), std::string::npos);
}

TEST_F(CliTest, PasswordsInBrokerUrlsNeverReachTheOutput) {
  ProcessResult r = Idem({"queue", "stats", "--queue", "amqp://idem:s3cret@127.0.0.1:1/?queue=nowhere"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ((r.out + r.err).find("s3cret"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("idem:***@"), std::string::npos) << r.err;
}

TEST_F(CliTest, UnreadableInputFileIsABadInputError) {
  ProcessResult r = Idem({"publish", "--queue", Queue(), "--topic", "pay", "--input", dir_.File("missing.jsonl")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot read input file"), std::string::npos);
}

}  // namespace
}  // namespace idem
