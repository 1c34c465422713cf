// One name per thing on the command line: --store for the store and --broker
// for the broker on every command, the older names (--store-url, --queue)
// still taken but hidden from --help; URLs with a scheme idem does not know
// and empty names are usage errors (exit 2) that name the flag, and nothing
// is created.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "integration/run_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using namespace idem::testing;

std::string Joined(const std::vector<std::string>& args) {
  std::string s = "idem";
  for (const std::string& a : args) s += " " + a;
  return s;
}

bool Has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

TEST(CliFlagNames, HelpShowsStoreAndBrokerOnlyUnderTheirOneName) {
  const std::vector<std::vector<std::string>> store_commands = {
      {"records", "list"}, {"records", "show"}, {"outbox", "relay"}, {"outbox", "stats"}, {"dlq", "replay"},
      {"dlq", "purge"},    {"dlq", "audit"},    {"reconcile"},       {"demo"},            {"bench"}};
  for (std::vector<std::string> args : store_commands) {
    args.push_back("--help");
    ProcessResult r = Idem(args);
    ASSERT_EQ(r.exit_code, 0) << Joined(args) << "\n" << r.err;
    EXPECT_TRUE(Has(r.out, "--store ")) << Joined(args) << "\n" << r.out;
    EXPECT_FALSE(Has(r.out, "--store-url")) << Joined(args) << "\n" << r.out;
  }
  const std::vector<std::vector<std::string>> broker_commands = {
      {"publish"}, {"queue", "stats"}, {"dlq", "list"}, {"dlq", "show"}, {"outbox", "relay"}, {"demo"}};
  for (std::vector<std::string> args : broker_commands) {
    args.push_back("--help");
    ProcessResult r = Idem(args);
    ASSERT_EQ(r.exit_code, 0) << Joined(args) << "\n" << r.err;
    EXPECT_TRUE(Has(r.out, "--broker ")) << Joined(args) << "\n" << r.out;
    EXPECT_FALSE(Has(r.out, "--queue")) << Joined(args) << "\n" << r.out;
  }
}

TEST(CliFlagNames, AMissingStoreNamesTheFlagEveryCommandTakes) {
  // Was "--store-url is required" on outbox stats, while records took --store.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"outbox", "stats"}, {"records", "list"}, {"outbox", "relay", "--broker", "q.db"}}) {
    ProcessResult r = Idem(args);
    EXPECT_EQ(r.exit_code, 2) << Joined(args) << "\n" << r.err;
    EXPECT_TRUE(Has(r.err, "--store is required")) << Joined(args) << "\n" << r.err;
  }
  ProcessResult r = Idem({"queue", "stats"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "--broker is required")) << r.err;
}

TEST(CliFlagNames, TheOldNamesStillWork) {
  TempDir dir;
  const std::string q = dir.File("q.db");
  ProcessResult pub = Idem({"publish", "--queue", q, "--topic", "pay", "--key-fields", "id"}, "{\"id\":\"P1\"}\n");
  ASSERT_EQ(pub.exit_code, 0) << pub.err;
  for (const char* flag : {"--broker", "--queue"}) {
    ProcessResult stats = Idem({"queue", "stats", flag, q, "--json"});
    ASSERT_EQ(stats.exit_code, 0) << flag << ": " << stats.err;
    EXPECT_EQ(nlohmann::json::parse(stats.out).value("ready", -1), 1) << flag << ": " << stats.out;
  }
  // The store's two names reach the same store: the same answer either way.
  const std::string s = dir.File("s.db");
  ProcessResult by_new = Idem({"outbox", "stats", "--store", s, "--json"});
  ProcessResult by_old = Idem({"outbox", "stats", "--store-url", s, "--json"});
  EXPECT_EQ(by_new.exit_code, by_old.exit_code) << by_new.err << "\n" << by_old.err;
  EXPECT_EQ(by_new.out, by_old.out);
  EXPECT_FALSE(Has(by_old.err, "required")) << by_old.err;
}

TEST(CliFlagNames, BothNamesAtOnceAreAUsageError) {
  TempDir dir;
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"queue", "stats", "--broker", dir.File("a.db"), "--queue", dir.File("b.db")},
           {"queue", "stats", "--queue", dir.File("b.db"), "--broker", dir.File("a.db")}}) {
    ProcessResult r = Idem(args);
    EXPECT_EQ(r.exit_code, 2) << Joined(args) << "\n" << r.err;
    EXPECT_TRUE(Has(r.err, "--queue is the former name of --broker: give one of them")) << Joined(args) << "\n" << r.err;
  }
}

TEST(CliFlagNames, ATypoedUrlSchemeOnAFlagIsRefusedNamingTheFlagAndCreatesNothing) {
  struct Case {
    std::vector<std::string> args;
    std::string flag;        // as typed
    std::string suggestion;  // "did you mean `…`?"
  };
  // Relative: where a file named after the typo would appear is the working directory.
  const std::string typo_queue = "queu:cli-flag-typo-q.db", typo_store = "sqlit:cli-flag-typo-s.db";
  std::filesystem::remove(typo_queue);  // left by a run of a build that had the bug
  std::filesystem::remove(typo_store);
  const std::vector<Case> cases = {
      {{"publish", "--broker", typo_queue, "--topic", "t"}, "--broker", "queue:"},
      {{"publish", "--queue", typo_queue, "--topic", "t"}, "--queue", "queue:"},
      {{"queue", "stats", "--broker", typo_queue}, "--broker", "queue:"},
      {{"dlq", "list", "--broker", typo_queue}, "--broker", "queue:"},
      {{"records", "list", "--store", typo_store}, "--store", "sqlite:"},
      {{"outbox", "stats", "--store-url", typo_store}, "--store-url", "sqlite:"},
      {{"outbox", "relay", "--store", typo_store, "--broker", "q.db"}, "--store", "sqlite:"},
      {{"reconcile", "--store", "sqlte:/abs/pay.db"}, "--store", "sqlite:"},
      {{"demo", "--store", "postgresql:/h/db"}, "--store", "postgresql://"},
      {{"demo", "--redis-url", "rediss://h"}, "--redis-url", "redis://"},
  };
  for (const Case& c : cases) {
    ProcessResult r = Idem(c.args);
    EXPECT_EQ(r.exit_code, 2) << Joined(c.args) << "\n" << r.err;
    EXPECT_TRUE(Has(r.err, c.flag + ": unsupported")) << Joined(c.args) << "\n" << r.err;
    EXPECT_TRUE(Has(r.err, "did you mean `" + c.suggestion + "`?")) << Joined(c.args) << "\n" << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(typo_queue)) << "a typo'd scheme opened a new queue file named after it";
  EXPECT_FALSE(std::filesystem::exists(typo_store)) << "a typo'd scheme opened a new SQLite file named after it";
}

TEST(CliFlagNames, AnEmptyUrlIsAUsageError) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"queue", "stats", "--broker", ""}, {"records", "list", "--store", ""}}) {
    ProcessResult r = Idem(args);
    EXPECT_EQ(r.exit_code, 2) << Joined(args) << "\n" << r.err;
    EXPECT_TRUE(Has(r.err, "found an empty value")) << Joined(args) << "\n" << r.err;
  }
}

TEST(CliFlagNames, PublishRefusesAnEmptyTopicOrKeyField) {
  TempDir dir;
  const std::string q = dir.File("q.db");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"publish", "--broker", q, "--topic", ""}, "--topic"},
      {{"publish", "--broker", q, "--topic", "  "}, "--topic"},
      {{"publish", "--broker", q, "--topic", "pay", "--key-fields", ""}, "--key-fields"},
      {{"publish", "--broker", q, "--topic", "pay", "--key-fields", "id, "}, "--key-fields"},
  };
  for (const auto& [args, flag] : cases) {
    ProcessResult r = Idem(args, "{\"id\":\"P1\"}\n");
    EXPECT_EQ(r.exit_code, 2) << Joined(args) << "\n" << r.err;
    EXPECT_TRUE(Has(r.err, flag + ": must not be empty")) << Joined(args) << "\n" << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(q)) << "a usage error publishes and parks nothing";
}

}  // namespace
}  // namespace idem
