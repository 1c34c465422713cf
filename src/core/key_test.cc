#include "core/key.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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


// --- Hostile payloads: numbers beyond a double, deep nesting, big ids. ---

std::string Nested(size_t depth) {
  // {"payment_id":"P1","x":[[[…]]]}: the object is level 1, so depth - 1 arrays.
  return "{\"payment_id\":\"P1\",\"x\":" + std::string(depth - 1, '[') + std::string(depth - 1, ']') + "}";
}

TEST(KeyHostileTest, NumberBeyondDoubleRangeInTheKeyFieldIsAKey) {
  auto id = DeriveIdentity(Msg(R"({"payment_id":1e400,"amount":5})"), Spec({"payment_id"}));
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(id->key, "pay:1e400");
  auto neg = DeriveIdentity(Msg(R"({"payment_id":-1e400,"amount":5})"), Spec({"payment_id"}));
  ASSERT_TRUE(neg.ok()) << neg.status().ToString();
  EXPECT_EQ(neg->key, "pay:-1e400");
  auto k = BusinessKeyFromPayload(R"({"payment_id":1E+400})", {"payment_id"});
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ(*k, "1e400");
}

TEST(KeyHostileTest, NumberBeyondDoubleRangeElsewhereCountsByItsExactText) {
  auto a = DeriveIdentity(Msg(R"({"payment_id":"P1","note":1e400})"), Spec({"payment_id"}));
  auto b = DeriveIdentity(Msg(R"({"payment_id":"P1","note":1e401})"), Spec({"payment_id"}));
  auto c = DeriveIdentity(Msg(R"({"payment_id":"P1","note":-1e400})"), Spec({"payment_id"}));
  auto again = DeriveIdentity(Msg(R"({ "note" : 1E+400, "payment_id":"P1" })"), Spec({"payment_id"}));
  ASSERT_TRUE(a.ok() && b.ok() && c.ok() && again.ok()) << a.status().ToString();
  EXPECT_NE(a->fingerprint, b->fingerprint);  // through a double, both would be +inf
  EXPECT_NE(a->fingerprint, c->fingerprint);
  EXPECT_EQ(a->fingerprint, again->fingerprint);  // same number, other spelling of the exponent
  EXPECT_TRUE(CheckJsonObject(R"({"note":1e400})").ok());
}

TEST(KeyHostileTest, TwentyFiveDigitIdsDifferingInTheLastDigitGetTwoKeys) {
  auto a = DeriveIdentity(Msg(R"({"payment_id":1234567890123456789012345,"amount":5})"), Spec({"payment_id"}));
  auto b = DeriveIdentity(Msg(R"({"payment_id":1234567890123456789012346,"amount":5})"), Spec({"payment_id"}));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->key, "pay:1234567890123456789012345");
  EXPECT_EQ(b->key, "pay:1234567890123456789012346");
  EXPECT_NE(a->fingerprint, b->fingerprint);
  auto big = BusinessKeyFromPayload(R"({"id":18446744073709551617})", {"id"});  // 2^64 + 1
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(*big, "18446744073709551617");
}

TEST(KeyHostileTest, NumbersHaveOneCanonicalForm) {
  auto key = [](const std::string& number) {
    auto k = BusinessKeyFromPayload("{\"id\":" + number + "}", {"id"});
    return k.ok() ? *k : "error: " + k.status().message();
  };
  EXPECT_EQ(key("-0"), "0");
  EXPECT_EQ(key("42"), "42");
  EXPECT_EQ(key("-42"), "-42");
  EXPECT_EQ(key("1.50"), "1.50");
  EXPECT_EQ(key("1.5E+07"), "1.5e7");
  EXPECT_EQ(key("1e-007"), "1e-7");
  EXPECT_EQ(key("2E-0"), "2e0");
  EXPECT_EQ(key("true"), "true");
  EXPECT_NE(key("01").find("leading zero"), std::string::npos);
  EXPECT_NE(key("+1").find("not valid JSON"), std::string::npos);
  EXPECT_NE(key("1.").find("not valid JSON"), std::string::npos);
}

TEST(KeyHostileTest, DeepNestingIsRefusedWithItsDepthBeforeAnyParsing) {
  auto id = DeriveIdentity(Msg(Nested(100'000)), Spec({"payment_id"}));
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(id.status().message().find("nests 100000 levels deep, over the limit of 64"), std::string::npos)
      << id.status().message();
  EXPECT_NE(CheckJsonObject(Nested(100'000)).message().find("100000 levels"), std::string::npos);
  EXPECT_FALSE(BusinessKeyFromPayload(Nested(100'000), {"payment_id"}).ok());
}

TEST(KeyHostileTest, ExactlyAtTheDepthLimitWorksOneMoreDoesNot) {
  EXPECT_TRUE(DeriveIdentity(Msg(Nested(64)), Spec({"payment_id"})).ok());
  auto over = DeriveIdentity(Msg(Nested(65)), Spec({"payment_id"}));
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.status().message().find("nests 65 levels deep, over the limit of 64"), std::string::npos);
  JsonLimits limits;
  limits.max_depth = 3;
  EXPECT_TRUE(DeriveIdentity(Msg(Nested(3)), Spec({"payment_id"}), limits).ok());
  EXPECT_FALSE(DeriveIdentity(Msg(Nested(4)), Spec({"payment_id"}), limits).ok());
  // Brackets inside strings are text, not nesting.
  EXPECT_TRUE(DeriveIdentity(Msg("{\"payment_id\":\"" + std::string(500, '[') + "\"}"), Spec({"payment_id"})).ok());
}

TEST(KeyHostileTest, ProducersCanUseTheConsumersLimits) {
  JsonLimits limits;
  limits.max_depth = 100;
  EXPECT_FALSE(CheckJsonObject(Nested(80)).ok());
  EXPECT_TRUE(CheckJsonObject(Nested(80), limits).ok());
  auto k = BusinessKeyFromPayload(Nested(80), {"payment_id"}, limits);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ(*k, "P1");
  limits.max_bytes = 20;
  EXPECT_NE(BusinessKeyFromPayload(Nested(80), {"payment_id"}, limits).status().message().find("over the limit of 20"),
            std::string::npos);
}

TEST(KeyHostileTest, SizeLimitIsCheckedBeforeParsing) {
  JsonLimits limits;
  limits.max_bytes = 10;
  auto id = DeriveIdentity(Msg(R"({"payment_id":"P12345"})"), Spec({"payment_id"}), limits);
  ASSERT_FALSE(id.ok());
  EXPECT_NE(id.status().message().find("over the limit of 10"), std::string::npos) << id.status().message();
}

TEST(KeyHostileTest, ReasonsNameTheProblem) {
  auto utf8 = DeriveIdentity(Msg("{\"payment_id\":\"P\xff\"}"), Spec({"payment_id"}));
  ASSERT_FALSE(utf8.ok());
  EXPECT_NE(utf8.status().message().find("not valid UTF-8"), std::string::npos) << utf8.status().message();
  auto array = DeriveIdentity(Msg("[1]"), Spec({"payment_id"}));
  EXPECT_NE(array.status().message().find("not an object (it is array)"), std::string::npos);
  auto truncated = DeriveIdentity(Msg(R"({"payment_id": "P)"), Spec({"payment_id"}));
  EXPECT_NE(truncated.status().message().find("not valid JSON: unterminated string at byte"), std::string::npos)
      << truncated.status().message();
  auto surrogate = DeriveIdentity(Msg(R"({"payment_id":"\ud800"})"), Spec({"payment_id"}));
  EXPECT_NE(surrogate.status().message().find("surrogate"), std::string::npos);
}

// Fingerprints recorded before numbers were kept exact must still match for
// ordinary payloads, or every redelivery after an upgrade would be a conflict.
TEST(KeyHostileTest, OrdinaryPayloadsKeepTheFingerprintTheyHadBefore) {
  for (const char* payload : {
           R"({"payment_id":"P1","user":"u3","amount":199})",
           R"({ "b" : [1, -2, 0, 9223372036854775807, 18446744073709551615, -9223372036854775808], "a":{"z":null,"y":true,"x":false} })",
           R"({"s":"quote \" backslash \\ slash \/ tab \t nl \n cr \r bs \b ff \f ctl \u0001 del \u007f"})",
           R"({"u":"\u00e9t\u00e9 \ud83d\ude00 中文","n":-0,"f":12.5,"g":0.1,"h":-3.25})",
           R"({"dup":1,"dup":2,"":"empty name","nested":[{"k":[[],{}]}]})",
           "\xEF\xBB\xBF{\"bom\":1}",
       }) {
    const std::string before = Fingerprint(nlohmann::json::parse(payload).dump());
    auto id = DeriveIdentity(Msg(payload, "k"), Spec({}));
    ASSERT_TRUE(id.ok()) << payload << ": " << id.status().ToString();
    EXPECT_EQ(id->fingerprint, before) << payload;
  }
}

TEST(KeyHostileTest, FingerprintFieldsWithHostileNumbers) {
  HandlerSpec s = Spec({"id"});
  s.fingerprint_fields = {"amount", "id", "amount"};
  auto a = DeriveIdentity(Msg(R"({"id":"1","amount":100000000000000000000001,"sent_at":1})"), s);
  auto b = DeriveIdentity(Msg(R"({"id":"1","amount":100000000000000000000002,"sent_at":1})"), s);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->fingerprint, b->fingerprint);
  const std::string before = Fingerprint(nlohmann::json::parse(R"({"amount":5,"id":"1","other":null})").dump());
  s.fingerprint_fields = {"id", "amount", "other"};
  auto c = DeriveIdentity(Msg(R"({"id":"1","amount":5})"), s);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->fingerprint, before);  // a missing field counts as null, as before
}

}  // namespace
}  // namespace idem
