#include "idem/payload.h"

#include <gtest/gtest.h>

#include "idem/handler.h"

namespace idem {
namespace {

Payload Parsed(std::string_view bytes) {
  auto p = Payload::Parse(bytes);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p.ok() ? *p : *Payload::Parse("{}");
}

TEST(PayloadTest, ReadsTopLevelFieldsAndJsonPointers) {
  Payload p = Parsed(R"({"payment_id":"P1","order":{"id":"O/7","lines":[{"sku":"A"},{"sku":"B"}]},"a~b":1})");
  EXPECT_EQ(*p.String("payment_id"), "P1");
  EXPECT_EQ(*p.String("/order/id"), "O/7");
  EXPECT_EQ(*p.String("/order/lines/1/sku"), "B");
  EXPECT_EQ(*p.Int("/a~0b"), 1);
  EXPECT_EQ(p.KindOf("/order/lines"), Payload::Kind::kArray);
  EXPECT_FALSE(p.Has("/order/lines/2"));
  EXPECT_FALSE(p.Has("/order/lines/01")) << "RFC 6901: no leading zeros in an index";
  EXPECT_FALSE(p.Has("missing"));
}

// The handler sees numbers as the key did: two 25-digit ids stay two ids.
TEST(PayloadTest, NumbersKeepTheirExactText) {
  Payload p = Parsed(R"({"id":1234567890123456789012345,"big":1e400,"amount":199,"rate":2.50,"neg":-0})");
  EXPECT_EQ(*p.Text("id"), "1234567890123456789012345");
  EXPECT_EQ(*p.Text("big"), "1e400");
  EXPECT_EQ(*p.Text("rate"), "2.50");
  EXPECT_EQ(*p.Int("amount"), 199);
  EXPECT_EQ(*p.Int("neg"), 0);
}

TEST(PayloadTest, TypedGettersNameTheFieldAndWhatWasFound) {
  Payload p = Parsed(R"({"id":1234567890123456789012345,"amount":12.5,"user":7,"ok":true})");
  auto big = p.Int("id");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().message(), "field 'id' is \"1234567890123456789012345\", beyond the 64-bit range");
  EXPECT_EQ(p.Int("amount").status().message(), "field 'amount' is \"12.5\", not a whole number");
  EXPECT_EQ(p.String("user").status().message(), "field 'user' must be a string, but is number");
  EXPECT_EQ(p.String("nope").status().message(), "field 'nope' must be a string, but is missing");
  EXPECT_TRUE(*p.Bool("ok"));
  EXPECT_FALSE(p.Bool("user").ok());
}

TEST(PayloadTest, ParseRefusesWhatThePipelineRefuses) {
  EXPECT_FALSE(Payload::Parse("{\"a\":").ok());
  EXPECT_FALSE(Payload::Parse(std::string(100'000, '[')).ok());
  EXPECT_FALSE(Payload::Parse("{\"a\":\"\xff\"}").ok());
}

TEST(HandlerResultTest, FromStatusParksBadInputAndRetriesTheRest) {
  auto bad = HandlerResult::FromStatus(Status::InvalidArgument("field 'amount' is 12.5"), "read payment");
  EXPECT_EQ(bad.outcome, HandlerResult::Outcome::kPermanent);
  EXPECT_EQ(bad.reason, "read payment: " + Status::InvalidArgument("field 'amount' is 12.5").ToString());
  EXPECT_EQ(HandlerResult::FromStatus(Status::Unavailable("db down"), "write ledger").outcome,
            HandlerResult::Outcome::kRetryable);
  EXPECT_EQ(HandlerResult::FromStatus(Status::Busy("locked"), "write ledger").outcome,
            HandlerResult::Outcome::kRetryable);
  EXPECT_EQ(HandlerResult::FromStatus(Status::Corruption("x"), "read").outcome, HandlerResult::Outcome::kPermanent);
}

// A handler that forwards every step's status (`return FromStatus(s, …)`) must
// see its effects commit when the step succeeded, not retried until it parks.
TEST(HandlerResultTest, FromStatusOfOkIsSuccess) {
  auto ok = HandlerResult::FromStatus(Status::OK(), "write ledger");
  EXPECT_EQ(ok.outcome, HandlerResult::Outcome::kOk);
  EXPECT_TRUE(ok.reason.empty());
}

}  // namespace
}  // namespace idem
