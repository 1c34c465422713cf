// Input from outside, as the fuzz tests found it: properties and headers an
// external (or hostile) producer can send decode without overflow, and the
// attempt cross-check with x-death can only move a message closer to being
// parked; a URL that names no usable port is refused. No server needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "idem/rabbitmq.h"
#include "source/rabbitmq/field_table.h"
#include "source/rabbitmq/message_codec.h"
#include "source/rabbitmq/outgoing.h"
#include "source/rabbitmq/topology.h"

namespace idem::rabbitmq {
namespace {

amqp_field_value_t Text(const char* s) {
  amqp_field_value_t v;
  v.kind = AMQP_FIELD_KIND_UTF8;
  v.value.bytes = amqp_cstring_bytes(s);
  return v;
}

amqp_field_value_t Number(int64_t n) {
  amqp_field_value_t v;
  v.kind = AMQP_FIELD_KIND_I64;
  v.value.i64 = n;
  return v;
}

amqp_table_entry_t Entry(const char* key, amqp_field_value_t v) {
  amqp_table_entry_t e;
  e.key = amqp_cstring_bytes(key);
  e.value = v;
  return e;
}

QueueNames Names() {
  QueueNames names;
  names.main = "q";
  return names;
}

amqp_basic_properties_t WithHeaders(amqp_table_entry_t* headers, int n) {
  amqp_basic_properties_t p{};
  p._flags = AMQP_BASIC_HEADERS_FLAG;
  p.headers = {n, headers};
  return p;
}

const std::string kBody = "{}";
amqp_bytes_t Body() { return amqp_cstring_bytes(kBody.c_str()); }

Message Decode(const amqp_basic_properties_t& p) { return MessageFromAmqp(p, Body(), "pay", "id-1"); }

TEST(RabbitUnitHostile, TimestampBeyondInt64MillisecondsIsAnUnknownPublicationTime) {
  amqp_basic_properties_t p{};
  p._flags = AMQP_BASIC_TIMESTAMP_FLAG;
  p.timestamp = std::numeric_limits<uint64_t>::max();
  Message m = Decode(p);
  EXPECT_EQ(m.published_at_ms, 0) << "unknown, not a wrapped-around negative time";
  p.timestamp = uint64_t{1} << 56;  // in int64 range as seconds, not as milliseconds
  m = Decode(p);
  EXPECT_EQ(m.published_at_ms, 0);

  p.timestamp = 1'700'000'000;
  m = Decode(p);
  EXPECT_EQ(m.published_at_ms, 1'700'000'000'000);
}

// x-death history with the given counts, every pass through wait queue q.wait.100.
struct Deaths {
  explicit Deaths(std::initializer_list<int64_t> counts) {
    for (int64_t c : counts) {
      entries.push_back({Entry("queue", Text("q.wait.100")), Entry("reason", Text("expired")),
                         Entry("count", Number(c))});
    }
    for (auto& e : entries) {
      amqp_field_value_t v;
      v.kind = AMQP_FIELD_KIND_TABLE;
      v.value.table = {3, e.data()};
      values.push_back(v);
    }
    amqp_field_value_t array;
    array.kind = AMQP_FIELD_KIND_ARRAY;
    array.value.array = {static_cast<int>(values.size()), values.data()};
    header = Entry("x-death", array);
  }
  amqp_table_t table() { return {1, &header}; }

  std::vector<std::vector<amqp_table_entry_t>> entries;
  std::vector<amqp_field_value_t> values;
  amqp_table_entry_t header;
};

TEST(RabbitUnitHostile, HugeDeathCountsParkTheMessageInsteadOfWrappingToAFirstAttempt) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  Deaths huge({kMax, kMax});
  EXPECT_EQ(AttemptOf(huge.table(), Names()), 1'000'000);
  Deaths one_huge({kMax});
  EXPECT_EQ(AttemptOf(one_huge.table(), Names()), 1'000'000);
}

TEST(RabbitUnitHostile, NegativeDeathCountsDoNotTakeAttemptsAway) {
  Deaths mixed({2, -5});
  EXPECT_EQ(AttemptOf(mixed.table(), Names()), 3) << "two real passes: the third attempt";
}

TEST(RabbitUnitHostile, ARetriedCopyKeepsEveryHeaderWhenOneHasAnEmptyName) {
  amqp_table_entry_t nested[] = {Entry("", Text("nameless inside")), Entry("n", Number(7))};
  amqp_field_value_t table;
  table.kind = AMQP_FIELD_KIND_TABLE;
  table.value.table = {2, nested};
  amqp_table_entry_t headers[] = {Entry(kKeyHeader, Text("order-7")), Entry("", Text("nameless")),
                                  Entry("trace", table)};
  const amqp_basic_properties_t p = WithHeaders(headers, 3);
  const Message m = Decode(p);

  auto copy = Outgoing::CopyOf(p, Body());
  MakeRetryCopy(*copy, m, "q.wait.30000", "handler failed", 2, 1'000);
  const amqp_table_t sent = copy->headers.table();
  EXPECT_EQ(GetString(sent, kKeyHeader).value_or("(lost)"), "order-7") << "the business key travels with the retry";
  auto text = HeadersAsText(sent);
  EXPECT_EQ(text[""], "nameless");
  EXPECT_EQ(text["trace"], R"({"":"nameless inside","n":7})");
  EXPECT_EQ(text[kAttemptHeader], "2");
}

TEST(RabbitUnitHostile, ARepeatedHeaderNameReadsAsTheFirstEverywhere) {
  amqp_field_value_t nothing;
  nothing.kind = AMQP_FIELD_KIND_VOID;
  amqp_table_entry_t headers[] = {Entry(kKeyHeader, Text("order-7")), Entry(kKeyHeader, Text("order-8")),
                                  Entry(kAttemptHeader, nothing), Entry(kAttemptHeader, Number(4))};
  const amqp_basic_properties_t p = WithHeaders(headers, 4);
  const Message m = Decode(p);
  EXPECT_EQ(m.key, "order-7");
  EXPECT_EQ(m.headers.at(kKeyHeader), "order-7") << "the headers shown are the ones the key came from";
  EXPECT_EQ(AttemptOf(p.headers, Names()), 1);
  EXPECT_EQ(m.headers.at(kAttemptHeader), "null");
}

TEST(RabbitUnitHostile, DeeplyNestedHeadersAreSummarisedAsTextAndCopiedWhole) {
  constexpr int kDepth = 200'000;  // beyond what any stack takes by recursion
  std::vector<amqp_field_value_t> levels(kDepth + 1);
  for (int i = 0; i < kDepth; ++i) {
    levels[i].kind = AMQP_FIELD_KIND_ARRAY;
    levels[i].value.array = {1, &levels[i + 1]};
  }
  levels[kDepth] = Text("bottom");
  amqp_table_entry_t headers[] = {Entry(kKeyHeader, Text("order-7")), Entry("trace", levels[0])};
  const amqp_basic_properties_t p = WithHeaders(headers, 2);

  const Message m = Decode(p);
  EXPECT_EQ(m.key, "order-7");
  EXPECT_NE(m.headers.at("trace").find("nested deeper than 64 levels"), std::string::npos);

  auto copy = Outgoing::CopyOf(p, Body());
  const amqp_field_value_t* v = Find(copy->headers.table(), "trace");
  int depth = 0;
  for (; v && v->kind == AMQP_FIELD_KIND_ARRAY && v->value.array.num_entries == 1; ++depth)
    v = &v->value.array.entries[0];
  EXPECT_EQ(depth, kDepth) << "the copy that travels on keeps every level";
  ASSERT_TRUE(v && v->kind == AMQP_FIELD_KIND_UTF8);
  EXPECT_EQ(std::string(static_cast<const char*>(v->value.bytes.bytes), v->value.bytes.len), "bottom");
}

TEST(RabbitUnitHostile, UrlWithPortZeroIsRefusedWithTheRange) {
  auto zero = ParseAmqpUrl("amqp://guest:guest@127.0.0.1:0/");
  ASSERT_FALSE(zero.ok()) << "port 0 would only fail later, at connect time";
  EXPECT_NE(zero.status().message().find("1-65535"), std::string::npos) << zero.status().ToString();
  EXPECT_TRUE(ParseAmqpUrl("amqp://guest:guest@127.0.0.1:65535/").ok());
}

}  // namespace
}  // namespace idem::rabbitmq
