// `idem demo` as a user runs it: the exit status and the JSON it prints.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "testing/test_util.h"

namespace {

struct Output {
  int exit_code = -1;
  std::string out;
};

// Runs the CLI with `args`; stdout is captured, stderr (progress) is discarded.
Output RunCli(const std::string& args) {
  Output o;
  FILE* p = popen((std::string(IDEM_CLI_PATH) + " " + args + " 2>/dev/null").c_str(), "r");
  if (!p) return o;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) o.out.append(buf, n);
  const int status = pclose(p);
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

TEST(DemoCli, JsonShowsDamageWithoutIdemAndNoneWithIt) {
  Output o = RunCli("demo --json --messages 200 --seed 7");
  ASSERT_EQ(o.exit_code, 0) << o.out;
  auto j = nlohmann::json::parse(o.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << o.out;
  EXPECT_EQ(j["seed"], 7);
  EXPECT_EQ(j["messages"], 200);
  EXPECT_EQ(j["idem_clean"], true);
  EXPECT_EQ(j["off_shows_damage"], true);
  ASSERT_EQ(j["scenarios"].size(), 7u);
  std::vector<std::string> ids;
  int64_t off_double = 0;
  for (const auto& s : j["scenarios"]) {
    ids.push_back(s["id"]);
    const auto& on = s["on"];
    const std::string id = s["id"];
    EXPECT_GE(on["published"].get<int64_t>(), 200) << id;
    EXPECT_EQ(on["double_charges"], 0) << id;
    EXPECT_EQ(on["duplicate_effects"], 0) << id;
    EXPECT_EQ(on["wrong_balances"], 0) << id;
    EXPECT_EQ(on["unbalanced_accounts"], 0) << id;
    EXPECT_EQ(on["regressed_states"], 0) << id;
    EXPECT_EQ(on["legitimate_blocked"], 0) << id;
    EXPECT_EQ(on["effects_applied"], on["effects_expected"]) << id;
    EXPECT_EQ(on["parked_wrongly"], 0) << id;
    EXPECT_EQ(on["left_in_queue"], 0) << id;
    EXPECT_EQ(on["clean"], true) << id;
    EXPECT_EQ(s["off"]["published"], on["published"]) << id << ": both modes run the same workload";
    off_double += s["off"]["double_charges"].get<int64_t>();
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"001", "A1", "A2", "A3", "A4", "A5", "A6"}));
  EXPECT_GT(off_double, 0);
  const auto& incident = j["scenarios"][0];
  EXPECT_EQ(incident["off"]["double_charges"], 1) << "P20260928001 charged twice";
  EXPECT_EQ(incident["off"]["incident_charge_times_ms"].size(), 2u);
  EXPECT_EQ(incident["on"]["incident_charge_times_ms"].size(), 1u);
}

TEST(DemoCli, TableNamesTheIncidentAndTheVerdict) {
  Output o = RunCli("demo --messages 50 --seed 3 --only 001,A1");
  ASSERT_EQ(o.exit_code, 0) << o.out;
  EXPECT_NE(o.out.find("P20260928001"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("charged 2 times"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("no legitimate message blocked"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("A2 "), std::string::npos) << "--only runs only the scenarios named";
}

TEST(DemoCli, HelpTeachesAndBadUsageExitsTwo) {
  Output help = RunCli("demo --help");
  EXPECT_EQ(help.exit_code, 0);
  for (const char* word : {"--messages", "--seed", "--keep", "--json", "--broker", "--speedup", "double charges",
                           "Exit status"})
    EXPECT_NE(help.out.find(word), std::string::npos) << word;
  EXPECT_EQ(RunCli("demo --messages 3").exit_code, 2);
  EXPECT_EQ(RunCli("demo --only A9").exit_code, 2);
  auto not_rabbit = idem::testing::RunProcess({IDEM_CLI_PATH, "demo", "--broker", "nats://127.0.0.1:4222"});
  EXPECT_EQ(not_rabbit.exit_code, 2);
  EXPECT_NE(not_rabbit.err.find("amqp://"), std::string::npos) << not_rabbit.err;
  EXPECT_EQ(RunCli("demo --broker amqp://127.0.0.1 --speedup 0").exit_code, 2);
}

}  // namespace
