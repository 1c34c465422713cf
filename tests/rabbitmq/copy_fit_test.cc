// The dead-letter copy sized before it is sent (copy_fit.h), checked against
// rabbitmq-c's own encoder: a copy that FitMoveCopy passes encodes within the
// frame's budget, idem's headers and the body intact; one that cannot fit says
// why. No server needed.
#include "source/rabbitmq/copy_fit.h"

#include <amqp_framing.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/bounded_text.h"
#include "source/rabbitmq/field_table.h"
#include "source/rabbitmq/message_codec.h"

namespace idem::rabbitmq {
namespace {

QueueNames Names() {
  QueueNames names;
  names.main = "q";
  names.dead = "q.dead";
  return names;
}

// rabbitmq-c encodes a content header's properties into frame_max - 20 bytes.
bool EncodesWithin(Outgoing& o, size_t frame_max) {
  std::vector<char> buffer(frame_max - 20);
  amqp_basic_properties_t p = o.Properties();
  return amqp_encode_properties(AMQP_BASIC_CLASS, &p, amqp_bytes_t{buffer.size(), buffer.data()}) >= 0;
}

std::unique_ptr<Outgoing> DeadCopy(const std::vector<std::pair<std::string, std::string>>& headers,
                                   const std::string& reason, const std::string& body = "{}") {
  auto o = std::make_unique<Outgoing>();
  o->body = body;
  o->message_id = "m-1";
  for (const auto& [k, v] : headers) o->headers.SetString(k, v);
  Message m;
  m.topic = "pay";
  MakeDeadCopy(*o, m, Names(), reason, 2, 7, 1'700'000'000'000);
  return o;
}

TEST(RabbitCopyFit, ACopyThatFitsIsLeftAlone) {
  auto o = DeadCopy({{"x-tenant", "acme"}}, "bad payment");
  CopyFit fit = FitMoveCopy(*o, kDefaultFrameMax, 1 << 20);
  EXPECT_TRUE(fit.fits);
  EXPECT_EQ(fit.dropped_headers, 0u);
  EXPECT_EQ(GetString(o->headers.table(), "x-tenant"), "acme");
  EXPECT_FALSE(Find(o->headers.table(), kHeadersTrimmedHeader));
}

TEST(RabbitCopyFit, TheUnboundedReasonIsWhatOverflowedTheFrame) {
  auto o = DeadCopy({}, "no account " + std::string(200'000, 'u'));
  EXPECT_FALSE(EncodesWithin(*o, kDefaultFrameMax)) << "the copy as it was built before: table too large";
  auto bounded = DeadCopy({}, BoundedReason("no account " + std::string(200'000, 'u')));
  EXPECT_TRUE(FitMoveCopy(*bounded, kDefaultFrameMax, 1 << 20).fits);
  EXPECT_TRUE(EncodesWithin(*bounded, kDefaultFrameMax));
}

TEST(RabbitCopyFit, TheProducersHeadersAreTrimmedAndIdemsKept) {
  std::vector<std::pair<std::string, std::string>> big;
  for (int i = 0; i < 5; ++i) big.emplace_back("x-big-" + std::to_string(i), std::string(30'000, 'h'));
  big.emplace_back("x-small", "kept");
  auto o = DeadCopy(big, std::string(2'000, 'r'), std::string(500'000, 'b'));
  ASSERT_FALSE(EncodesWithin(*o, kDefaultFrameMax));
  CopyFit fit = FitMoveCopy(*o, kDefaultFrameMax, 1 << 20);
  ASSERT_TRUE(fit.fits);
  EXPECT_TRUE(EncodesWithin(*o, kDefaultFrameMax));
  EXPECT_EQ(fit.dropped_headers, 1u);
  EXPECT_EQ(fit.dropped_bytes, 1 + 7 + 1 + 4 + 30'000u);
  const amqp_table_t t = o->headers.table();
  EXPECT_EQ(GetString(t, kReasonHeader), std::string(2'000, 'r'));
  EXPECT_EQ(GetString(t, kTopicHeader), "pay");
  EXPECT_EQ(GetInt(t, kAttemptHeader), 2);
  EXPECT_EQ(GetInt(t, kDeadIdHeader), 7);
  EXPECT_EQ(GetString(t, "x-small"), "kept");
  EXPECT_FALSE(Find(t, "x-big-4"));
  EXPECT_EQ(GetString(t, kHeadersTrimmedHeader),
            "1 header(s) of 30,013 bytes dropped to fit the 131,072-byte AMQP frame: \"x-big-4\"");
  EXPECT_EQ(o->body, std::string(500'000, 'b')) << "the body is never touched";
}

TEST(RabbitCopyFit, AProducersCopyOfIdemsHeaderIsNotIdems) {
  // A repeated name: the first is what the move wrote; a producer's 100 kB
  // second "x-idem-reason" must not count as idem's and overflow the frame.
  auto o = DeadCopy({}, "bad payment");
  amqp_table_entry_t forged[2];
  const std::string value(100'000, 'f');
  forged[0].key = amqp_cstring_bytes(kReasonHeader);
  forged[0].value.kind = AMQP_FIELD_KIND_UTF8;
  forged[0].value.value.bytes = amqp_bytes_t{value.size(), const_cast<char*>(value.data())};
  forged[1] = forged[0];
  amqp_table_t original{2, forged};
  auto copy = std::make_unique<Outgoing>();
  copy->headers.CopyFrom(original);
  Message m;
  m.topic = "pay";
  MakeDeadCopy(*copy, m, Names(), "bad payment", 1, 9, 1);
  CopyFit fit = FitMoveCopy(*copy, 65'536, 1 << 20);
  ASSERT_TRUE(fit.fits) << fit.why_not;
  EXPECT_TRUE(EncodesWithin(*copy, 65'536));
  EXPECT_EQ(GetString(copy->headers.table(), kReasonHeader), "bad payment");
}

TEST(RabbitCopyFit, ABodyOverTheLimitCannotFitAndSaysWhy) {
  auto o = DeadCopy({}, "bad payment", std::string(65'537, 'b'));
  CopyFit fit = FitMoveCopy(*o, kDefaultFrameMax, 65'536);
  EXPECT_FALSE(fit.fits);
  EXPECT_EQ(fit.why_not, "its body of 65,537 bytes is over the 65,536-byte message limit (max_message_bytes)");
  auto at = DeadCopy({}, "bad payment", std::string(65'536, 'b'));
  EXPECT_TRUE(FitMoveCopy(*at, kDefaultFrameMax, 65'536).fits) << "a body at the limit goes to Q.dead";
}

}  // namespace
}  // namespace idem::rabbitmq
