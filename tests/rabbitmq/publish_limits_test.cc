// What AMQP can carry, checked before a batch is sent (publish_limits.h), and
// ids longer than a message-id holds. No server needed: the sizes are checked
// against rabbitmq-c's own encoder.
#include "source/rabbitmq/publish_limits.h"

#include <amqp_framing.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "source/rabbitmq/message_codec.h"
#include "source/rabbitmq/outgoing.h"

namespace idem::rabbitmq {
namespace {

constexpr size_t kFrameMax = 131072;  // what idem negotiates

void Plain(Outgoing& o) {
  o.exchange = "Q";
  o.routing_key = "pay";
  o.message_id = "P1";
  o.body = "{}";
}

// What rabbitmq-c writes into a header frame for `o`, or its error (< 0).
int Encode(Outgoing& o, size_t frame_max = kFrameMax) {
  std::vector<char> frame(frame_max - kHeaderFrameOverhead);
  amqp_basic_properties_t p = o.Properties();
  return amqp_encode_properties(AMQP_BASIC_CLASS, &p, amqp_bytes_t{frame.size(), frame.data()});
}

struct Refusal {
  const char* name;
  void (*make)(Outgoing&);
  const char* says;  // a part of the reason
};

TEST(RabbitPublishLimits, EachThingAmqpCannotCarryIsRefusedAsPermanentWithABoundedReason) {
  const std::vector<Refusal> cases = {
      {"a topic over 255 bytes", [](Outgoing& o) { o.routing_key.assign(256, 't'); }, "routing key (at most 255"},
      {"a 64 KiB topic", [](Outgoing& o) { o.routing_key.assign(65536, 't'); }, "(65,536 bytes)"},
      {"a 302-byte header name", [](Outgoing& o) { o.headers.SetString(std::string(302, 'n'), "v"); },
       "AMQP header names hold at most 255 bytes"},
      {"a 1 MiB header", [](Outgoing& o) { o.headers.SetString("big", std::string(1 << 20, 'v')); },
       "one AMQP header frame holds"},
      {"a header table over the frame",
       [](Outgoing& o) {
         for (int i = 0; i < 3000; ++i) o.headers.SetString("h" + std::to_string(i), std::string(40, 'v'));
       },
       "one AMQP header frame holds"},
      {"a long content-type", [](Outgoing& o) { o.content_type.assign(300, 'c'); }, "content-type"},
      {"a nested table with a long name",
       [](Outgoing& o) {
         static amqp_table_entry_t inner{};
         static std::string name(300, 'x');
         inner.key = amqp_bytes_t{name.size(), name.data()};
         inner.value.kind = AMQP_FIELD_KIND_VOID;
         amqp_table_entry_t outer{};
         outer.key = amqp_cstring_bytes("trace");
         outer.value.kind = AMQP_FIELD_KIND_TABLE;
         outer.value.value.table = amqp_table_t{1, &inner};
         o.headers.CopyFrom(amqp_table_t{1, &outer});
       },
       "nested header name"},
  };
  for (const Refusal& c : cases) {
    Outgoing o;
    Plain(o);
    c.make(o);
    Status s = CheckPublishable(o, kFrameMax);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << c.name << ": " << s.ToString();
    EXPECT_FALSE(s.IsRetryable()) << c.name << ": a producer following status.h would retry forever";
    EXPECT_NE(s.message().find(c.says), std::string::npos) << c.name << ": " << s.message();
    EXPECT_LT(s.message().size(), 400u) << c.name << ": the reason echoes the input";
  }
}

TEST(RabbitPublishLimits, WhatFitsIsPassedAndEncodesInExactlyTheCountedBytes) {
  Outgoing o;
    Plain(o);
  o.routing_key.assign(255, 't');
  o.headers.SetString(std::string(255, 'n'), "v");
  o.headers.SetInt("n", 7);
  ASSERT_TRUE(CheckPublishable(o, kFrameMax).ok());
  EXPECT_EQ(Encode(o), EncodedPropertiesBytes(o));
}

TEST(RabbitPublishLimits, TheFrameBoundaryIsExact) {
  // Grow one header until the properties fill the frame to the byte.
  Outgoing o;
    Plain(o);
  o.headers.SetString("fill", "");
  const int64_t room = static_cast<int64_t>(kFrameMax - kHeaderFrameOverhead);
  const int64_t base = EncodedPropertiesBytes(o);
  o.headers.SetString("fill", std::string(static_cast<size_t>(room - base), 'f'));
  ASSERT_EQ(EncodedPropertiesBytes(o), room);
  EXPECT_TRUE(CheckPublishable(o, kFrameMax).ok());
  EXPECT_EQ(Encode(o), room) << "rabbitmq-c writes the largest passed message into one frame";
  o.headers.SetString("fill", std::string(static_cast<size_t>(room - base + 1), 'f'));
  EXPECT_EQ(CheckPublishable(o, kFrameMax).code(), Status::Code::kInvalidArgument);
  EXPECT_LT(Encode(o), 0) << "one byte more does not fit rabbitmq-c's frame either";
}

TEST(RabbitLongIds, AnIdOverAMessageIdTravelsAsItsDigestAndComesBackWhole) {
  const std::string a = std::string(299, 'k') + "a", b = std::string(299, 'k') + "b";
  EXPECT_EQ(AmqpMessageId("P1"), "P1") << "short ids are sent as they are";
  EXPECT_LE(AmqpMessageId(a).size(), kMaxShortString);
  EXPECT_EQ(AmqpMessageId(a), AmqpMessageId(a)) << "stable: a copy published again has the same message-id";
  EXPECT_NE(AmqpMessageId(a), AmqpMessageId(b)) << "ids that differ only past byte 255 stay apart";

  Message m;
  m.topic = "pay";
  m.id = a;
  m.key = a;
  m.payload = "{}";
  auto o = FromMessage(m, QueueNames::From(RabbitMqOptions{}), "", 1000);
  EXPECT_EQ(o->message_id, AmqpMessageId(a));
  ASSERT_TRUE(CheckPublishable(*o, kFrameMax).ok());
  amqp_basic_properties_t p = o->Properties();
  Message back = MessageFromAmqp(p, amqp_cstring_bytes("{}"), "pay", "fallback");
  EXPECT_EQ(back.id, a) << "the consumer reads the full id from idem-message-id";
  EXPECT_EQ(back.key, a) << "and the full key from idem-key";
}

TEST(RabbitLongIds, ADigestIdWithAHeaderItWasNotMadeFromKeepsTheDigest) {
  Outgoing o;
    Plain(o);
  o.message_id = AmqpMessageId(std::string(300, 'a'));
  o.headers.SetString(kMessageIdHeader, "something-else");
  amqp_basic_properties_t p = o.Properties();
  EXPECT_EQ(MessageFromAmqp(p, amqp_empty_bytes, "pay", "fallback").id, o.message_id);
}

TEST(RabbitLongIds, TheKeyHeaderOfEarlierVersionsIsStillRead) {
  Outgoing o;
    Plain(o);
  o.headers.SetString(kLegacyKeyHeader, "order-7");
  amqp_basic_properties_t p = o.Properties();
  EXPECT_EQ(MessageFromAmqp(p, amqp_empty_bytes, "pay", "f").key, "order-7");
  o.headers.SetString(kKeyHeader, "order-8");
  p = o.Properties();
  EXPECT_EQ(MessageFromAmqp(p, amqp_empty_bytes, "pay", "f").key, "order-8") << "idem-key wins";
}

}  // namespace
}  // namespace idem::rabbitmq
