// What ParseKafkaUrl and the wiring table make of kafka:// URLs.
#include <gtest/gtest.h>

#include "idem/kafka.h"
#include "source/broker_url.h"

namespace idem {
namespace {

TEST(KafkaUrlTest, ServersTopicsAndParameters) {
  auto o = ParseKafkaUrl(
      "kafka://k1:9092,k2:9093/payments,refunds?group=billing&assignor=range&session_timeout_ms=6000"
      "&commit_interval_ms=250&retry_delays_ms=1000,60000&prefetch=50&rdkafka.client.id=idem-test");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->bootstrap_servers, "k1:9092,k2:9093");
  EXPECT_FALSE(o->mock);
  EXPECT_EQ(o->topics, (std::vector<std::string>{"payments", "refunds"}));
  EXPECT_EQ(o->group, "billing");
  EXPECT_EQ(o->assignor, "range");
  EXPECT_EQ(o->session_timeout_ms, 6000);
  EXPECT_EQ(o->commit_interval_ms, 250);
  EXPECT_EQ(o->retry_delays_ms, (std::vector<int64_t>{1000, 60000}));
  EXPECT_EQ(o->prefetch, 50u);
  EXPECT_EQ(o->rdkafka.at("client.id"), "idem-test");
  EXPECT_TRUE(o->static_membership) << "members are static by default";
  EXPECT_EQ(o->instance_id, "") << "the host name, unless given";
  auto dynamic = ParseKafkaUrl("kafka://k1:9092/p?static_membership=false");
  ASSERT_TRUE(dynamic.ok()) << dynamic.status().ToString();
  EXPECT_FALSE(dynamic->static_membership);
  auto named = ParseKafkaUrl("kafka://k1:9092/p?instance_id=pay-eu-1");
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(named->instance_id, "pay-eu-1");
}

TEST(KafkaUrlTest, MockNeedsNoServer) {
  auto o = ParseKafkaUrl("kafka://mock/payments");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_TRUE(o->mock);
  EXPECT_EQ(o->group, "idem");
  EXPECT_EQ(o->assignor, "cooperative-sticky");
  EXPECT_EQ(o->retry_mode, RetryMode::kOrdered) << "ordered retries are the default";
  EXPECT_EQ(o->max_waiting, 1'000u) << "the ordered mode's memory bound is its own, not prefetch";
  auto topics = ParseKafkaUrl("kafka://mock/payments?retry_mode=retry_topics");
  ASSERT_TRUE(topics.ok()) << topics.status().ToString();
  EXPECT_EQ(topics->retry_mode, RetryMode::kRetryTopics);
}

TEST(KafkaUrlTest, MistakesSayWhatToWrite) {
  struct Case {
    const char* url;
    const char* says;
  };
  for (const Case& c : {Case{"kafka:///payments", "names no bootstrap servers"},
                        Case{"kafka://k1/payments", "is not HOST:PORT"},
                        Case{"kafka://k1:9092", "names no topic"},
                        Case{"kafka://k1:9092/pay ments", "is not a topic name"},
                        Case{"kafka://k1:9092/p?grup=x", "unknown parameter 'grup'"},
                        Case{"kafka://k1:9092/p?assignor=sticky", "is not one of"},
                        Case{"kafka://k1:9092/p?retry_delays_ms=0", "positive milliseconds"},
                        Case{"kafka://k1:9092/p?retry_mode=blocking", "is not one of ordered, retry_topics"},
                        Case{"kafka://k1:9092/p?session_timeout_ms=-1", "not a positive number"},
                        Case{"kafka://k1:9092/p?max_waiting=0", "not a positive number"},
                        Case{"kafka://k1:9092/p?static_membership=yes", "is not true or false"},
                        Case{"kafka://k1:9092/p?instance_id=pay%20eu", "is not an id"}}) {
    auto o = ParseKafkaUrl(c.url);
    ASSERT_FALSE(o.ok()) << c.url;
    EXPECT_NE(o.status().ToString().find(c.says), std::string::npos) << c.url << ": " << o.status().ToString();
  }
}

TEST(KafkaUrlTest, TheWiringTableKnowsKafka) {
  auto u = ParseBrokerUrl("kafka://h:9092/payments");
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(u->kind, BrokerUrl::Kind::kKafka);
  auto b = OpenBroker("kafka://h:9092", BrokerOptions{}, Env::Default());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().ToString().find("names no topic"), std::string::npos) << b.status().ToString();
}

// The consumer's retry mode and the URL's must not disagree; the queues cannot
// hold a key in order, so they refuse ordered retries before opening anything.
TEST(KafkaUrlTest, ARetryModeNobodyCanHonourIsRefused) {
  BrokerOptions ordered;
  ordered.retry_mode = RetryMode::kOrdered;
  auto clash = OpenBroker("kafka://h:9092/payments?retry_mode=retry_topics", ordered, Env::Default());
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.status().ToString().find("disagree"), std::string::npos) << clash.status().ToString();
  auto queue = OpenBroker("queue:/nonexistent-dir/q.db", ordered, Env::Default());
  ASSERT_FALSE(queue.ok());
  EXPECT_EQ(queue.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(queue.status().ToString().find("needs a Kafka broker"), std::string::npos) << queue.status().ToString();
}

}  // namespace
}  // namespace idem
