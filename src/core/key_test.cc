#include "core/key.h"

#include <gtest/gtest.h>

namespace idem {
namespace {

HandlerSpec Spec(std::vector<std::string> fields, std::string topic = "pay") {
  HandlerSpec s;
  s.topic = std::move(topic);
  s.key.fields = std::move(fields);
  return s;
}

Message Msg(std::string payload, std::string key = {}, std::string id = "m1") {
  Message m;
  m.id = std::move(id);
  m.topic = "pay";
  m.key = std::move(key);
  m.payload = std::move(payload);
  return m;
}

TEST(KeyTest, DerivesFromBusinessFieldsWithTopicPrefix) {
  auto id = DeriveIdentity(Msg(R"({"payment_id":"P1","scene":7,"amount":5})"), Spec({"payment_id", "scene"}));
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(id->key, "pay:P1:7");
}

TEST(KeyTest, DifferentActionsOnOneEntityGetDifferentKeys) {
  auto pay = DeriveIdentity(Msg(R"({"order_no":"O1"})"), Spec({"order_no"}, "pay"));
  auto refund = DeriveIdentity(Msg(R"({"order_no":"O1"})"), Spec({"order_no"}, "refund"));
  ASSERT_TRUE(pay.ok() && refund.ok());
  EXPECT_NE(pay->key, refund->key);
}

TEST(KeyTest, EscapesSeparatorsSoFieldsCannotCollide) {
  auto a = DeriveIdentity(Msg(R"({"a":"x:y","b":"z"})"), Spec({"a", "b"}));
  auto b = DeriveIdentity(Msg(R"({"a":"x","b":"y:z"})"), Spec({"a", "b"}));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->key, b->key);
}

TEST(KeyTest, MissingNullEmptyOrStructuredFieldIsAClearError) {
  for (const char* payload : {R"({"amount":1})", R"({"payment_id":null})", R"({"payment_id":""})",
                              R"({"payment_id":{"x":1}})"}) {
    auto id = DeriveIdentity(Msg(payload), Spec({"payment_id"}));
    ASSERT_FALSE(id.ok()) << payload;
    EXPECT_NE(id.status().message().find("payment_id"), std::string::npos) << id.status().message();
    EXPECT_NE(id.status().message().find("no idempotency key"), std::string::npos);
  }
}

TEST(KeyTest, NotJsonOrNotAnObjectOrInvalidUtf8IsRefused) {
  EXPECT_NE(DeriveIdentity(Msg("not json"), Spec({"a"})).status().message().find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(DeriveIdentity(Msg("[1,2]"), Spec({"a"})).status().message().find("not an object"), std::string::npos);
  EXPECT_FALSE(DeriveIdentity(Msg("{\"a\":\"\xff\xfe\"}"), Spec({"a"})).ok());
}

TEST(KeyTest, NulOrControlCharacterInKeyIsRefused) {
  auto nul = DeriveIdentity(Msg(R"({"a":"x\u0000y"})"), Spec({"a"}));
  ASSERT_FALSE(nul.ok());
  EXPECT_NE(nul.status().message().find("NUL"), std::string::npos);
  EXPECT_FALSE(DeriveIdentity(Msg(R"({"a":"x\ny"})"), Spec({"a"})).ok());
  EXPECT_FALSE(DeriveIdentity(Msg(R"({})", std::string("k\0z", 3)), Spec({})).ok());
}

TEST(KeyTest, SqlMetacharactersAreJustBytes) {
  auto id = DeriveIdentity(Msg(R"({"a":"x'; DROP TABLE idem_records; --"})"), Spec({"a"}));
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->key, "pay:x'; DROP TABLE idem_records; --");
}

TEST(KeyTest, OverlongKeyIsRefused) {
  std::string big(600, 'k');
  EXPECT_FALSE(DeriveIdentity(Msg("{\"a\":\"" + big + "\"}"), Spec({"a"})).ok());
}

TEST(KeyTest, FallsBackToProducerKeyThenRefusesWithoutOne) {
  auto id = DeriveIdentity(Msg("{}", "biz-9"), Spec({}));
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->key, "pay:biz-9");
  auto none = DeriveIdentity(Msg("{}"), Spec({}));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no idempotency key"), std::string::npos);
}

TEST(KeyTest, BrokerIdOnlyWhenExplicitlyAllowed) {
  HandlerSpec s = Spec({});
  s.key.allow_broker_id = true;
  auto id = DeriveIdentity(Msg("{}", "", "amqp-7"), s);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->key, "pay:msgid:amqp-7");
}

TEST(KeyTest, FingerprintIgnoresWhitespaceAndKeyOrderButNotValues) {
  HandlerSpec s = Spec({"id"});
  auto a = DeriveIdentity(Msg(R"({"id":"1","amount":5,"user":"u"})"), s);
  auto b = DeriveIdentity(Msg(R"({ "user":"u", "amount": 5, "id":"1" })"), s);
  auto c = DeriveIdentity(Msg(R"({"id":"1","amount":6,"user":"u"})"), s);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->fingerprint, b->fingerprint);
  EXPECT_NE(a->fingerprint, c->fingerprint);
  EXPECT_EQ(a->fingerprint.size(), 32u);
}

TEST(KeyTest, FingerprintFieldsLimitWhatCounts) {
  HandlerSpec s = Spec({"id"});
  s.fingerprint_fields = {"id", "amount"};
  auto a = DeriveIdentity(Msg(R"({"id":"1","amount":5,"sent_at":1})"), s);
  auto b = DeriveIdentity(Msg(R"({"id":"1","amount":5,"sent_at":2})"), s);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->fingerprint, b->fingerprint);
}

TEST(KeyTest, BusinessKeyForProducers) {
  auto k = BusinessKeyFromPayload(R"({"payment_id":"P1","scene":"pay"})", {"payment_id", "scene"});
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(*k, "P1:pay");
  EXPECT_FALSE(BusinessKeyFromPayload(R"({"x":1})", {"payment_id"}).ok());
}

}  // namespace
}  // namespace idem
