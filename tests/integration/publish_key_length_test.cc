// One key-length rule for producer and consumer: `idem publish` counts the
// consumer's topic prefix ("pay:") in the 512-byte limit. The longest business
// key it accepts is consumed; one byte more is refused at publish, with a
// reason that says how long the key may be, instead of being parked by every
// consumer later.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/key_length.h"
#include "idem/embedded_queue.h"
#include "idem/key.h"
#include "idem/pipeline.h"
#include "integration/run_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using namespace idem::testing;

std::string Line(const std::string& id) { return nlohmann::json{{"payment_id", id}, {"amount", 1}}.dump(); }

TEST(KeyLengthRule, TheLongestKeyPublishAcceptsIsConsumedAndOneByteMoreIsRefusedAtPublish) {
  TempDir dir;
  const std::string queue = dir.File("q.db");
  const std::string longest(kMaxKeyBytes - 4, 'k');  // "pay:" + 508 bytes = 512
  const std::string one_more = longest + "x";
  ProcessResult r = Idem({"publish", "--queue", queue, "--topic", "pay", "--key-fields", "payment_id"},
                         Line(longest) + "\n" + Line(one_more) + "\n");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("published 1 message(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("line 2: the idempotency key would be 513 bytes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at most 508 bytes under this prefix"), std::string::npos) << r.err;

  auto store = OpenSqliteStore(dir.File("store.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok());
  CreateEffectTables(**store);
  auto q = EmbeddedQueue::Open(queue, {}, Env::Default());
  ASSERT_TRUE(q.ok());
  PipelineOptions o;
  o.max_linger_ms = 0;
  Pipeline p(q->get(), store->get(), Env::Default(), o);
  ASSERT_TRUE(p.Register(PayHandler()).ok());
  p.RunOnce();
  EXPECT_EQ(CountEffects(**store, "pay:" + longest), 1) << "the longest accepted key is applied";
  EXPECT_EQ(p.counters().parked, 0) << "no consumer parks what publish accepted";
}

TEST(KeyLengthRule, AFixedKeyThatCannotFitIsAUsageError) {
  TempDir dir;
  ProcessResult r = Idem({"publish", "--queue", dir.File("q.db"), "--topic", "pay", "--key",
                          std::string(kMaxKeyBytes - 3, 'k')},
                         "{\"amount\":1}\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--key: the idempotency key would be 513 bytes"), std::string::npos) << r.err;
}

TEST(KeyLengthRule, PublishAndConsumeCountTheSameBytes) {
  for (const std::string& key : {std::string(508, 'k'), std::string(509, 'k'), std::string(254, ':') ,
                                std::string(253, '\\') + "ab"}) {
    Message m;
    m.topic = "pay";
    m.key = key;
    m.payload = "{}";
    HandlerSpec spec;
    spec.topic = "pay";
    auto derived = DeriveIdentity(m, spec);
    const std::string publish_says = CheckDerivedKeyLength("pay", key);
    EXPECT_EQ(derived.ok(), publish_says.empty()) << key.size() << " bytes: " << publish_says;
    if (derived.ok()) EXPECT_EQ(derived->key.size(), DerivedKeyBytes("pay", key));
    else EXPECT_EQ(derived.status().message(), publish_says) << "one rule, one reason";
  }
}

}  // namespace
}  // namespace idem

namespace idem {
namespace {

TEST(KeyLengthRule, ATopicThatLeavesNoRoomForAKeyIsAUsageErrorQuotedByAPrefix) {
  TempDir dir;
  ProcessResult r = Idem({"publish", "--queue", dir.File("q.db"), "--topic", std::string(65536, 't'), "--key-fields",
                          "payment_id"},
                         "{\"payment_id\":\"P1\",\"amount\":1}\n");
  EXPECT_EQ(r.exit_code, 2) << r.err.substr(0, 2000);
  EXPECT_NE(r.err.find("leaves no room for a key"), std::string::npos) << r.err.substr(0, 2000);
  EXPECT_LT(r.err.size(), 1000u) << "the topic is quoted by a prefix only";
}

}  // namespace
}  // namespace idem
