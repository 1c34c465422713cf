// `idem publish` fed hostile lines: a number beyond double range, 100,000
// levels of nesting, ids longer than a double holds. The process never aborts:
// good lines are published (those around the bad ones included), lines that
// cannot be keyed are parked byte-exact with their line number and reason, and
// the exit code is 1.
#include <gtest/gtest.h>

#include "idem/embedded_queue.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using namespace idem::testing;

TEST(PublishHostileTest, HugeNumbersDeepNestingAndBigIdsNeitherAbortNorGetLost) {
  TempDir dir;
  const std::string queue = dir.File("q.db");
  const std::string deep = "{\"payment_id\":\"P-deep\",\"x\":" + std::string(100'000, '[') +
                           std::string(100'000, ']') + "}";
  const std::string input = std::string("{\"payment_id\":\"P1\",\"amount\":5}\n") +  // line 1
                            "{\"payment_id\":1e400,\"amount\":5}\n" +                   // line 2: a key "1e400"
                            "{\"payment_id\":\"P2\",\"amount\":1e400}\n" +               // line 3
                            deep + "\n" +                                               // line 4: parked
                            "{\"payment_id\":1234567890123456789012345,\"amount\":5}\n" +  // line 5
                            "{\"payment_id\":1234567890123456789012346,\"amount\":5}\n" +  // line 6
                            "{\"payment_id\":\"P3\",\"amount\":-1e400}\n";             // line 7
  ProcessResult r =
      RunProcess({IDEM_CLI_PATH, "publish", "--queue", queue, "--topic", "pay", "--key-fields", "payment_id"}, input);
  EXPECT_EQ(r.exit_code, 1) << r.err;  // one line was rejected
  EXPECT_NE(r.out.find("published 6"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.err.find("line 4: payload nests 100001 levels deep, over the limit of 64"), std::string::npos) << r.err;

  auto q = EmbeddedQueue::Open(queue, {}, Env::Default());
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  auto dead = (*q)->List(10);
  ASSERT_TRUE(dead.ok());
  ASSERT_EQ(dead->size(), 1u);
  EXPECT_EQ((*dead)[0].message.payload, deep) << "parked byte-exact";
  EXPECT_NE((*dead)[0].reason.find("line 4"), std::string::npos) << (*dead)[0].reason;

  auto ready = (*q)->Poll(10, 0);
  ASSERT_TRUE(ready.ok());
  ASSERT_EQ(ready->size(), 6u);
  std::vector<std::string> keys;
  for (const Message& m : *ready) keys.push_back(m.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"P1", "1e400", "P2", "1234567890123456789012345",
                                            "1234567890123456789012346", "P3"}));
}

}  // namespace
}  // namespace idem
