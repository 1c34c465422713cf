// The command line's contract, on every command: exit 0 on success, 1 when the
// operation failed, 2 for a usage error (CLI11's own parse errors included),
// printed in every --help; `idem --version`; numbers out of range are usage
// errors that name the option and the range, and nothing runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "connect/known_schemes.h"
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

const std::vector<std::vector<std::string>> kEveryCommand = {
    {},         {"publish"},       {"queue"},        {"queue", "stats"}, {"dlq"},   {"dlq", "list"},
    {"dlq", "show"}, {"dlq", "replay"}, {"dlq", "purge"}, {"demo"},          {"sim"},   {"bench"}};

TEST(CliContract, EveryHelpExitsZeroAndStatesTheExitCodes) {
  for (std::vector<std::string> args : kEveryCommand) {
    args.push_back("--help");
    ProcessResult r = Idem(args);
    EXPECT_EQ(r.exit_code, 0) << Joined(args) << "\n" << r.err;
    EXPECT_NE(r.out.find("Exit status: 0 success; 1 the operation failed"), std::string::npos) << Joined(args);
    EXPECT_NE(r.out.find("2 usage error"), std::string::npos) << Joined(args);
  }
}

// The release (CMake's project version), the commit and the backends the
// binary links: what a bug report needs.
TEST(CliContract, VersionNamesTheReleaseTheCommitAndTheBackends) {
  ProcessResult r = Idem({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string backends;
  for (const std::string& name : connect::LinkedComponents()) backends += (backends.empty() ? "" : " ") + name;
  EXPECT_EQ(backends.rfind("sqlite", 0), 0u) << backends;
  const std::string version = std::regex_replace(IDEM_PROJECT_VERSION, std::regex("\\."), "\\.");
  const std::regex line("^idem " + version + " \\(commit ([0-9a-f]{12}(-dirty)?|unknown), backends: " + backends +
                        "\\)\n$");
  EXPECT_TRUE(std::regex_search(r.out, line)) << r.out << "want: idem " << IDEM_PROJECT_VERSION
                                              << " (commit ..., backends: " << backends << ")";
}

TEST(CliContract, ParseErrorsAreUsageErrors) {
  TempDir dir;
  const std::string q = dir.File("q.db");
  const std::vector<std::vector<std::string>> cases = {
      {},                                                  // no command
      {"frobnicate"},                                      // unknown command
      {"publish", "--topic", "pay"},                       // missing --queue
      {"publish", "--queue", q, "--topic", "pay", "--no-such-option"},
      {"queue", "stats"},                                  // missing --queue
      {"dlq", "show", "--queue", q},                       // missing id
      {"dlq", "show", "--queue", q, "not-a-number"},
      {"sim", "--seeds"},                                  // option without its value
      {"sim", "--protection", "maybe"},
      {"demo", "--only"},
  };
  for (const auto& args : cases) {
    ProcessResult r = Idem(args);
    EXPECT_EQ(r.exit_code, 2) << Joined(args) << "\n" << r.err;
    EXPECT_FALSE(r.err.empty()) << Joined(args);
  }
  EXPECT_FALSE(std::filesystem::exists(q)) << "a usage error does nothing";
  EXPECT_NE(Idem({"frobnicate"}).err.find("unknown command 'frobnicate'"), std::string::npos);
}

TEST(CliContract, UnknownNamesListTheAllowedValues) {
  ProcessResult r = Idem({"sim", "--model", "foo"});
  EXPECT_EQ(r.exit_code, 2) << "was an uncaught exception (abort) before";
  EXPECT_NE(r.err.find("--model"), std::string::npos) << r.err;
  for (const char* model : {"rabbitmq", "kafka", "rocketmq"}) EXPECT_NE(r.err.find(model), std::string::npos) << r.err;
  r = Idem({"sim", "--workload", "mixed"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("payments"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ledger"), std::string::npos) << r.err;
}

// Every numeric option of every command: a value that makes no sense is exit 2,
// with the option and the allowed range in the message, before anything runs.
TEST(CliContract, OutOfRangeNumbersAreUsageErrorsThatNameTheRange) {
  TempDir dir;
  const std::string q = dir.File("q.db");
  struct Case {
    std::vector<std::string> args;
    std::string option;
    std::string range;
  };
  const std::vector<Case> cases = {
      {{"demo", "--messages", "-5"}, "--messages", "from 10 to 1000000"},
      {{"demo", "--messages", "0"}, "--messages", "from 10 to 1000000"},
      {{"demo", "--speedup", "0"}, "--speedup", "from 1 to 10000"},
      {{"demo", "--seed", "-1"}, "--seed", "from 0 to 18446744073709551615"},
      {{"sim", "--seeds", "0"}, "--seeds", "from 1 to"},
      {{"sim", "--seeds", "-1"}, "--seeds", "from 1 to"},
      {{"sim", "--first-seed", "-3"}, "--first-seed", "from 0 to"},
      {{"sim", "--seed", "-3"}, "--seed", "from 0 to"},
      {{"sim", "--events", "0"}, "--events", "from 1 to 100000"},
      {{"sim", "--jobs", "0"}, "--jobs", "from 1 to 256"},
      {{"publish", "--queue", q, "--topic", "t", "--delay-ms", "-1"}, "--delay-ms", "from 0 to"},
      {{"publish", "--queue", q, "--topic", "t", "--max-payload-bytes", "0"}, "--max-payload-bytes", "from 1 to"},
      {{"dlq", "list", "--queue", q, "--limit", "0"}, "--limit", "from 1 to 1000000"},
      {{"dlq", "list", "--queue", q, "--limit", "-1"}, "--limit", "from 1 to 1000000"},
      {{"dlq", "list", "--queue", q, "--after", "-1"}, "--after", "from 0 to"},
      {{"dlq", "replay", "--queue", q, "1.5"}, "ids", "from 0 to"},
      {{"bench", "--messages", "-1"}, "--messages", "from 1 to"},
      {{"bench", "--batch-size", "0"}, "--batch-size", "from 1 to 10000"},
      {{"bench", "--sweep", "10,0"}, "--sweep", "from 1 to 10000"},
      {{"bench", "--seconds", "0"}, "--seconds", "above 0"},
      {{"bench", "--paced-seconds", "-2"}, "--paced-seconds", "above 0"},
      {{"bench", "--history", "-1"}, "--history", "from 0 to"},
      {{"bench", "--soak-messages", "-1"}, "--soak-messages", "from 0 to"},
      {{"bench", "--duplicates", "1"}, "--duplicates", "at least 0 and below 1"},
      {{"bench", "--micro-min-time", "1e9"}, "--micro-min-time", "at most 60"},
      {{"reconcile", "--amount-decimals", "10"}, "--amount-decimals", "from 0 to 9"},
  };
  for (const Case& c : cases) {
    ProcessResult r = Idem(c.args);
    EXPECT_EQ(r.exit_code, 2) << Joined(c.args) << "\n" << r.err;
    EXPECT_NE(r.err.find(c.option), std::string::npos) << Joined(c.args) << "\n" << r.err;
    EXPECT_NE(r.err.find(c.range), std::string::npos) << Joined(c.args) << "\n" << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(q)) << "nothing ran";
}

TEST(CliContract, NumbersAreReadAsDecimal) {
  // CLI11 alone reads a leading 0 as octal: --limit 010 would be 8.
  TempDir dir;
  const std::string q = dir.File("q.db");
  std::string lines;
  for (int i = 0; i < 12; ++i) lines += "not json " + std::to_string(i) + "\n";
  ASSERT_EQ(Idem({"publish", "--queue", q, "--topic", "t"}, lines).exit_code, 1);
  ProcessResult r = Idem({"dlq", "list", "--queue", q, "--limit", "010", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 10) << r.out;
}

}  // namespace
}  // namespace idem
