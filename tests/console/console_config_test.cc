// The [console] table: operators with hashed secrets only, and the hash that
// `idem console hash-secret` prints is one the console accepts.
#include <gtest/gtest.h>

#include "console/secret_hash.h"
#include "service/config.h"
#include "testing/test_util.h"

namespace idem::console {
namespace {

const std::string kBase = "[broker]\nurl = \"queue:q.db\"\n[store]\nurl = \"sqlite:s.db\"\n"
                          "[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\n";

TEST(ConsoleConfigTest, OperatorsAreReadWithTheirRoles) {
  const std::string hash = HashSecret("alice-secret", kMinHashIterations).value();
  auto c = service::ParseConfig(kBase + "[console]\nsession_ttl_ms = 120000\n[[console.operator]]\nname = \"alice\"\n"
                                "role = \"operator\"\nsecret_hash = \"" + hash + "\"\n[[console.operator]]\n"
                                "name = \"vera\"\nsecret_hash = \"" + hash + "\"\n", "run.toml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->console.enabled);
  EXPECT_EQ(c->console.session_ttl_ms, 120000);
  ASSERT_EQ(c->console.operators.size(), 2u);
  EXPECT_EQ(c->console.Find("alice")->role, Role::kOperator);
  EXPECT_EQ(c->console.Find("vera")->role, Role::kReadOnly) << "read-only unless said otherwise";
  EXPECT_FALSE(service::ParseConfig(kBase, "run.toml")->console.enabled) << "off unless configured";
}

TEST(ConsoleConfigTest, APlainSecretOrNoOperatorIsAnErrorThatSaysWhatToDo) {
  auto plain = service::ParseConfig(kBase + "[console]\n[[console.operator]]\nname = \"alice\"\n"
                                    "secret_hash = \"hunter2\"\n", "run.toml");
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.status().message().find("run.toml:"), std::string::npos) << plain.status().message();
  EXPECT_NE(plain.status().message().find("idem console hash-secret"), std::string::npos) << plain.status().message();
  auto none = service::ParseConfig(kBase + "[console]\n", "run.toml");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("[[console.operator]]"), std::string::npos);
}

TEST(ConsoleConfigTest, HashSecretPrintsAHashOfTheSecretOnStdin) {
  auto r = testing::RunProcess({IDEM_CLI_PATH, "console", "hash-secret"}, "open sesame, please\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_FALSE(r.out.empty());
  const std::string hash = r.out.substr(0, r.out.size() - 1);
  EXPECT_EQ(CheckHashFormat(hash), "");
  EXPECT_TRUE(VerifySecret("open sesame, please", hash)) << "the trailing newline is not part of the secret";
  EXPECT_EQ(r.out.find("open sesame, please"), std::string::npos);
  EXPECT_EQ(testing::RunProcess({IDEM_CLI_PATH, "console", "hash-secret"}, "").exit_code, 2);
}

TEST(ConsoleConfigTest, HashSecretRefusesABlankOrShortSecret) {
  for (const char* secret : {"\n", "                \n", " \t \t \t \t \t \t \t\n", "hunter2\n"}) {
    auto r = testing::RunProcess({IDEM_CLI_PATH, "console", "hash-secret"}, secret);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.out, "") << "no hash printed";
    EXPECT_NE(r.err.find("at least 12 bytes"), std::string::npos) << r.err;
  }
  auto blank = testing::RunProcess({IDEM_CLI_PATH, "console", "hash-secret"}, "                \n");
  EXPECT_NE(blank.err.find("blank"), std::string::npos) << blank.err;
}

}  // namespace
}  // namespace idem::console
