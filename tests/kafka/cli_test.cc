// The idem command line on Kafka (the test's mock cluster, reached over TCP by
// the idem processes): publish, queue stats with the lag per partition, and the
// dead-letter console, whose purge says what a log cannot do.
#include <nlohmann/json.hpp>

#include "kafka/kafka_fixture.h"

namespace idem::testing {
namespace {

class KafkaCli : public KafkaPipelineTest {
 protected:
  ProcessResult Idem(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), IDEM_CLI_PATH);
    return RunProcess(args, input);
  }
};

TEST_F(KafkaCli, PublishStatsAndTheDeadLetterConsole) {
  const std::string url = Url();
  ProcessResult pub = Idem({"publish", "--queue", url, "--topic", "pay", "--key-fields", "payment_id"},
                           "{\"payment_id\":\"P1\",\"amount\":10}\n{\"amount\":3}\n");
  EXPECT_EQ(pub.exit_code, 1) << "a rejected line makes publish exit 1\n" << pub.out << pub.err;
  EXPECT_NE(pub.out.find("published 1 message(s)"), std::string::npos) << pub.out << pub.err;

  ProcessResult stats = Idem({"queue", "stats", "--queue", url, "--json"});
  ASSERT_EQ(stats.exit_code, 0) << stats.out << stats.err;
  auto st = nlohmann::json::parse(stats.out);
  EXPECT_EQ(st["ready"], 1);
  EXPECT_EQ(st["dead"], 1);

  ProcessResult list = Idem({"dlq", "list", "--queue", url, "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.out << list.err;
  auto dead = nlohmann::json::parse(list.out.substr(0, list.out.find('\n')));
  EXPECT_NE(dead["reason"].get<std::string>().find("payment_id"), std::string::npos) << dead.dump();
  const std::string id = dead["id"];

  ProcessResult show = Idem({"dlq", "show", "--queue", url, id});
  ASSERT_EQ(show.exit_code, 0) << show.out << show.err;
  EXPECT_NE(show.out.find("{\"amount\":3}"), std::string::npos) << show.out;

  ProcessResult replay = Idem({"dlq", "replay", "--queue", url, id, "--store", "sqlite:" + dir_.File("audit.db")});
  ASSERT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("replayed 1"), std::string::npos) << replay.out;
  ProcessResult after = Idem({"queue", "stats", "--queue", url, "--json"});
  ASSERT_EQ(after.exit_code, 0) << after.out << after.err;
  EXPECT_EQ(nlohmann::json::parse(after.out)["ready"], 2) << "the replay went back to the main topic";
  EXPECT_EQ(nlohmann::json::parse(after.out)["dead"], 0);
}

TEST_F(KafkaCli, StatsShowTheLagOfEachPartition) {
  PublishPayments(0, 8);
  ProcessResult stats = Idem({"queue", "stats", "--queue", Url()});
  ASSERT_EQ(stats.exit_code, 0) << stats.out << stats.err;
  EXPECT_NE(stats.out.find("ready      8"), std::string::npos) << stats.out;
  for (int p = 0; p < partitions_; ++p)
    EXPECT_NE(stats.out.find(topic_ + "/" + std::to_string(p)), std::string::npos) << stats.out;
}

TEST_F(KafkaCli, PurgeSaysWhatALogCannotDo) {
  ProcessResult pub = Idem({"publish", "--queue", Url(), "--topic", "pay", "--key-fields", "payment_id"},
                           "{\"amount\":3}\n");
  ASSERT_EQ(pub.exit_code, 1) << pub.out << pub.err;
  ProcessResult purge = Idem({"dlq", "purge", "--queue", Url(), "--all", "--yes", "--store", "sqlite:" + dir_.File("audit.db")});
  EXPECT_EQ(purge.exit_code, 1) << purge.out << purge.err;
  EXPECT_NE(purge.err.find("cannot delete one record"), std::string::npos) << purge.err;
  EXPECT_NE(purge.err.find("retention"), std::string::npos) << "purge on a log must say what happens instead: "
                                                             << purge.err;
  ProcessResult list = Idem({"dlq", "list", "--queue", Url(), "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.out << list.err;
  EXPECT_NE(list.out, "") << "the purge that cannot be done hid the dead letter anyway";
}

}  // namespace
}  // namespace idem::testing
