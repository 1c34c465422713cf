// The idem command line, run as a user would: bad input gets a clear error and a
// non-zero exit, nothing is lost (rejected lines are parked byte-exact), and the
// terminal-queue console lists, shows, replays and purges.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "idem/embedded_queue.h"
#include "testing/base64.h"
#include "integration/run_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using namespace idem::testing;

std::string OsAccount() { return getpwuid(geteuid())->pw_name; }

class CliTest : public ::testing::Test {
 protected:
  std::string Queue() const { return dir_.File("q.db"); }
  std::string AuditStore() const { return "sqlite:" + dir_.File("audit.db"); }
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
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--broker is required"), std::string::npos) << r.err;
  r = Idem({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
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
  auto dead = (*q)->List(10);
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
  const int64_t first_id = std::stoll(rows[0]["id"].get<std::string>());
  EXPECT_NE(rows[0]["reason"].get<std::string>().find("not valid JSON"), std::string::npos);

  r = Idem({"dlq", "show", "--queue", Queue(), std::to_string(first_id)});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("broken"), std::string::npos);
  EXPECT_NE(r.out.find("reason"), std::string::npos);

  r = Idem({"dlq", "show", "--queue", Queue(), "424242"});
  EXPECT_EQ(r.exit_code, 1) << "a well-formed id that names nothing: the operation failed, not the usage";
  EXPECT_NE(r.err.find("no dead letter with id 424242"), std::string::npos);

  r = Idem({"dlq", "replay", "--queue", Queue()});
  EXPECT_EQ(r.exit_code, 2) << "neither ids nor --all";
  r = Idem({"dlq", "replay", "--queue", Queue(), std::to_string(first_id), "--store", AuditStore()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("replayed 1"), std::string::npos);

  r = Idem({"queue", "stats", "--queue", Queue(), "--json"});
  ASSERT_EQ(r.exit_code, 0);
  auto stats = nlohmann::json::parse(r.out);
  EXPECT_EQ(stats["ready"], 2);
  EXPECT_EQ(stats["dead"], 1);

  r = Idem({"dlq", "purge", "--queue", Queue(), "--all"});
  EXPECT_EQ(r.exit_code, 2) << "purging everything needs --yes";
  r = Idem({"dlq", "purge", "--queue", Queue(), "--all", "--yes", "--store", AuditStore()});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("purged 1"), std::string::npos);
  r = Idem({"dlq", "list", "--queue", Queue()});
  EXPECT_NE(r.out.find("empty"), std::string::npos);

  // Both changes are in the audit, newest first, under the OS account that ran them.
  r = Idem({"dlq", "audit", "--store", AuditStore(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<nlohmann::json> audit;
  std::istringstream audit_lines(r.out);
  for (std::string line; std::getline(audit_lines, line);) audit.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(audit.size(), 2u) << r.out;
  EXPECT_EQ(audit[0]["action"], "purge");
  EXPECT_EQ(audit[0]["dead_letter_ids"], "all");
  EXPECT_EQ(audit[1]["action"], "replay");
  EXPECT_EQ(audit[1]["dead_letter_ids"], std::to_string(first_id));
  EXPECT_EQ(audit[1]["changed"], 1);
  EXPECT_EQ(audit[1]["outcome"], "ok");
  EXPECT_EQ(audit[1]["operator"], OsAccount());
  EXPECT_EQ(audit[1]["authenticated_by"], "os account (uid " + std::to_string(geteuid()) + ")");
}

// A monitoring probe or an operator with a mistyped --queue must hear so: the
// read-only commands (and replay/purge, which act on what is there) never create
// a queue file and never report an empty queue that does not exist.
TEST_F(CliTest, CommandsOnAMissingQueueFailAndCreateNothing) {
  const std::string typo = dir_.File("qeue.db");
  const std::vector<std::vector<std::string>> commands = {
      {"queue", "stats", "--queue", typo},        {"queue", "stats", "--queue", typo, "--json"},
      {"dlq", "list", "--queue", typo},           {"dlq", "list", "--queue", typo, "--json"},
      {"dlq", "show", "--queue", typo, "1"},      {"dlq", "replay", "--queue", typo, "1"},
      {"dlq", "replay", "--queue", typo, "--all"}, {"dlq", "purge", "--queue", typo, "1"}};
  for (const auto& args : commands) {
    ProcessResult r = Idem(args);
    EXPECT_EQ(r.exit_code, 1) << args[0] << " " << args[1] << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("no queue at '" + typo + "': check --broker; `idem publish` creates it"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "") << "no report of an empty queue";
    EXPECT_FALSE(std::filesystem::exists(typo)) << args[0] << " " << args[1] << " created the queue file";
  }
}

TEST_F(CliTest, ReplayOrPurgeOfAnIdThatDoesNotExistDoesNothingAndSaysSo) {
  ASSERT_EQ(Idem({"publish", "--queue", Queue(), "--topic", "pay"}, "broken\n").exit_code, 1);
  ProcessResult r = Idem({"dlq", "list", "--queue", Queue(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string real = nlohmann::json::parse(r.out)["id"].get<std::string>();

  for (const char* verb : {"replay", "purge"}) {
    r = Idem({"dlq", verb, "--queue", Queue(), real, "424242", "--store", AuditStore()});
    EXPECT_EQ(r.exit_code, 1) << verb << "\n" << r.err;
    EXPECT_NE(r.err.find("no dead letter with id 424242"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(std::string("nothing was ") + (verb[0] == 'r' ? "replayed" : "purged")), std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "") << "no 'replayed 0 … every guard applies again' line";
    auto q = EmbeddedQueue::Open(Queue(), {}, Env::Default());
    ASSERT_TRUE(q.ok());
    EXPECT_EQ((*q)->Stats()->dead, 1) << "the existing dead letter was not touched by the failed " << verb;
    EXPECT_EQ((*q)->Stats()->ready, 0);
  }
}

TEST_F(CliTest, JsonIdsAreStringsAndPayloadsComeBackByteExact) {
  const std::string invalid_utf8 = "{\"payment_id\":\"P3\",\"note\":\"\xff\xfe\x80\"}";
  const std::string utf8 = "{\"note\":\"caf\xc3\xa9 \xe2\x82\xac\"}";  // valid JSON without the key field
  ProcessResult r = Idem({"publish", "--queue", Queue(), "--topic", "pay", "--key-fields", "payment_id", "--json"},
                         "{\"payment_id\":\"P1\"}\n" + invalid_utf8 + "\n" + utf8 + "\n");
  EXPECT_EQ(r.exit_code, 1) << "lines were parked: " << r.err;
  auto pub = nlohmann::json::parse(r.out);
  EXPECT_EQ(pub["published"], 1);
  EXPECT_EQ(pub["parked"], 2);
  EXPECT_EQ(pub["skipped"], 0);
  ASSERT_EQ(pub["dead_letters"].size(), 2u);
  EXPECT_EQ(pub["dead_letters"][0]["line"], 2);
  ASSERT_TRUE(pub["dead_letters"][0]["dead_letter_id"].is_string()) << pub.dump();
  const std::string bad_id = pub["dead_letters"][0]["dead_letter_id"];
  const std::string good_id = pub["dead_letters"][1]["dead_letter_id"];

  r = Idem({"dlq", "list", "--queue", Queue(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto first = nlohmann::json::parse(r.out.substr(0, r.out.find('\n')));
  EXPECT_EQ(first["id"], bad_id) << "ids are strings everywhere";
  EXPECT_TRUE(first["msg_id"].is_string());

  r = Idem({"dlq", "show", "--queue", Queue(), bad_id, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto shown = nlohmann::json::parse(r.out);
  EXPECT_EQ(shown["id"], bad_id);
  EXPECT_EQ(shown["payload_encoding"], "base64");
  EXPECT_FALSE(shown.contains("payload")) << "never a payload with replacement characters";
  EXPECT_EQ(Unbase64(shown["payload_base64"].get<std::string>()), invalid_utf8);
  EXPECT_EQ(shown["payload_bytes"], invalid_utf8.size());

  r = Idem({"dlq", "show", "--queue", Queue(), good_id, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  shown = nlohmann::json::parse(r.out);
  EXPECT_EQ(shown["payload_encoding"], "utf-8");
  EXPECT_EQ(shown["payload"].get<std::string>(), utf8);

  r = Idem({"dlq", "replay", "--queue", Queue(), good_id, "--json", "--store", AuditStore()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto replayed = nlohmann::json::parse(r.out);
  EXPECT_EQ(replayed["replayed"], 1);
  EXPECT_EQ(replayed["ids"], nlohmann::json::array({good_id}));
  r = Idem({"dlq", "purge", "--queue", Queue(), bad_id, "--json", "--store", AuditStore()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["purged"], 1);
}

TEST_F(CliTest, EmptyAndWhitespaceOnlyLinesAreCountedAndNamed) {
  const std::string input = "{\"a\":1}\n\n   \n{\"a\":2}\n\t\r\n";
  ProcessResult r = Idem({"publish", "--queue", Queue(), "--topic", "pay"}, input);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("published 2 message(s) to topic 'pay', skipped 3 empty line(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("skipped 3 empty or whitespace-only line(s): 2, 3, 5"), std::string::npos) << r.err;

  r = Idem({"publish", "--queue", Queue(), "--topic", "pay", "--json"}, input);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["published"], 2);
  EXPECT_EQ(j["skipped"], 3);
  EXPECT_EQ(j["skipped_lines"], nlohmann::json::array({2, 3, 5}));
  EXPECT_EQ(j["parked"], 0);
  auto q = EmbeddedQueue::Open(Queue(), {}, Env::Default());
  ASSERT_TRUE(q.ok());
  EXPECT_EQ((*q)->Stats()->ready, 4);
  EXPECT_EQ((*q)->Stats()->dead, 0) << "blank lines are not dead letters";
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
