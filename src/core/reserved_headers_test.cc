#include "core/reserved_headers.h"

#include <gtest/gtest.h>

namespace idem {
namespace {

TEST(ReservedHeaders, IdemsBookkeepingIsReservedAndTheProducersOwnHeadersAreNot) {
  for (const char* name : {"x-idem-replay", "x-idem-first-failed-ms", "x-idem-topic", "x-idem-dead-id", "x-idem-"})
    EXPECT_TRUE(IsReservedHeader(name)) << name;
  for (const char* name : {"x-idem-key", "x-idem-published-ms", "x-idem-outbox-id", "idem-key", "idem-message-id",
                           "trace", "x-producer-x-idem-replay"})
    EXPECT_FALSE(IsReservedHeader(name)) << name;
}

TEST(ReservedHeaders, AProducersReservedHeadersAreRenamedAndKeepTheirValues) {
  std::map<std::string, std::string> h{{"x-idem-replay", "mallory"}, {"x-idem-first-failed-ms", "0"},
                                       {"x-idem-key", "K1"}, {"trace", "t"}};
  EXPECT_EQ(DisownReservedHeaders(h), 2);
  EXPECT_EQ(h, (std::map<std::string, std::string>{{"x-producer-x-idem-replay", "mallory"},
                                                   {"x-producer-x-idem-first-failed-ms", "0"},
                                                   {"x-idem-key", "K1"},
                                                   {"trace", "t"}}));
}

TEST(ReservedHeaders, ARenamedNameTheProducerAlsoSentKeepsTheProducersValue) {
  std::map<std::string, std::string> h{{"x-idem-replay", "forged"}, {"x-producer-x-idem-replay", "sent"}};
  DisownReservedHeaders(h);
  EXPECT_EQ(h, (std::map<std::string, std::string>{{"x-producer-x-idem-replay", "sent"}}));
}

TEST(ReservedHeaders, ABrokerMayReserveMoreNames) {
  std::map<std::string, std::string> h{{"retry_topic-attempts", "9"}, {"other", "x"}};
  EXPECT_EQ(DisownReservedHeaders(h, [](std::string_view n) { return n.substr(0, 12) == "retry_topic-"; }), 1);
  EXPECT_EQ(h.count("x-producer-retry_topic-attempts"), 1u);
  EXPECT_EQ(h.count("other"), 1u);
}

}  // namespace
}  // namespace idem
