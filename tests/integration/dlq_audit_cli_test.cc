// `idem dlq replay/purge` take who is acting from the environment checked
// against the configuration, never from a typed name: a configured operator
// with the right secret is audited as such; a wrong secret, a read-only
// operator or a missing audit store change nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "console/secret_hash.h"
#include "idem/embedded_queue.h"
#include "integration/run_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using namespace idem::testing;

class DlqAuditCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto q = EmbeddedQueue::Open(dir_.File("q.db"), {}, Env::Default());
    ASSERT_TRUE(q.ok());
    Message m;
    m.topic = "pay";
    m.payload = R"({"payment_id":"P1"})";
    auto id = (*q)->ParkRejected(m, "account missing");
    ASSERT_TRUE(id.ok());
    dead_id_ = std::to_string(*id);
    auto alice = console::HashSecret("alice-secret", console::kMinHashIterations);
    auto vera = console::HashSecret("vera-read-only", console::kMinHashIterations);
    ASSERT_TRUE(alice.ok() && vera.ok());
    std::ofstream(Config()) << "[broker]\nurl = \"queue:" << dir_.File("q.db") << "\"\n"
                            << "[store]\nurl = \"sqlite:" << dir_.File("s.db") << "\"\n"
                            << "[console]\n"
                            << "[[console.operator]]\nname = \"alice\"\nrole = \"operator\"\nsecret_hash = \"" << *alice
                            << "\"\n[[console.operator]]\nname = \"vera\"\nsecret_hash = \"" << *vera << "\"\n"
                            << "[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\n";
  }
  std::string Config() const { return dir_.File("run.toml"); }
  // idem ARGS with IDEM_OPERATOR and IDEM_OPERATOR_SECRET set.
  ProcessResult As(const std::string& name, const std::string& secret, std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/env", "IDEM_OPERATOR=" + name, "IDEM_OPERATOR_SECRET=" + secret, IDEM_CLI_PATH});
    return RunProcess(args);
  }
  int64_t Dead() {
    auto q = EmbeddedQueue::Open(dir_.File("q.db"), {}, Env::Default());
    return (*q)->Stats()->dead;
  }
  std::vector<nlohmann::json> Audit() {
    ProcessResult r = Idem({"dlq", "audit", "--config", Config(), "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<nlohmann::json> rows;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) rows.push_back(nlohmann::json::parse(line));
    return rows;
  }

  TempDir dir_;
  std::string dead_id_;
};

TEST_F(DlqAuditCliTest, ConfiguredOperatorWithItsSecretIsAuditedByName) {
  ProcessResult r = As("alice", "alice-secret", {"dlq", "replay", "--config", Config(), dead_id_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Dead(), 0);
  auto rows = Audit();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["operator"], "alice");
  EXPECT_EQ(rows[0]["authenticated_by"], "operator secret");
  EXPECT_EQ(rows[0]["action"], "replay");
  EXPECT_EQ(rows[0]["dead_letter_ids"], dead_id_);
  r = Idem({"dlq", "audit", "--config", Config()});
  EXPECT_NE(r.out.find("alice"), std::string::npos) << r.out;
}

TEST_F(DlqAuditCliTest, WrongSecretReadOnlyRoleOrNoAuditStoreChangeNothing) {
  ProcessResult r = As("alice", "guess", {"dlq", "purge", "--config", Config(), dead_id_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("IDEM_OPERATOR_SECRET does not match"), std::string::npos) << r.err;
  r = As("vera", "vera-read-only", {"dlq", "purge", "--config", Config(), dead_id_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("read-only"), std::string::npos) << r.err;
  r = As("alice", "alice-secret", {"dlq", "purge", "--queue", dir_.File("q.db"), dead_id_});
  EXPECT_EQ(r.exit_code, 2) << "IDEM_OPERATOR without a configuration to check it against";
  r = Idem({"dlq", "purge", "--queue", dir_.File("q.db"), dead_id_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("audited in the store"), std::string::npos) << r.err;
  EXPECT_EQ(Dead(), 1);
  // Nothing was audited: the store the file names was not even created, and
  // dlq audit says so instead of listing an empty trail from a new file.
  EXPECT_FALSE(std::filesystem::exists(dir_.File("s.db")));
  ProcessResult audit = Idem({"dlq", "audit", "--config", Config()});
  EXPECT_EQ(audit.exit_code, 1) << audit.out << audit.err;
  EXPECT_NE(audit.err.find("does not exist"), std::string::npos) << audit.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.File("s.db")));
}

}  // namespace
}  // namespace idem
