// What ParseStoreUrl and ParseBrokerUrl make of a URL before anything is opened.
#include <gtest/gtest.h>

#include "source/broker_url.h"
#include "store/store_url.h"

namespace idem {
namespace {

TEST(ParseStoreUrlTest, SqliteFormsGiveThePathAndOptions) {
  for (const char* url : {"app.db", "sqlite:app.db", "sqlite://app.db"}) {
    auto u = ParseStoreUrl(url);
    ASSERT_TRUE(u.ok()) << url << ": " << u.status().ToString();
    EXPECT_EQ(u->kind, StoreUrl::Kind::kSqlite);
    EXPECT_EQ(u->path, "app.db");
    EXPECT_TRUE(u->sqlite.durable_against_power_loss);
  }
  auto fast = ParseStoreUrl("sqlite:/tmp/app.db?synchronous=normal");
  ASSERT_TRUE(fast.ok());
  EXPECT_EQ(fast->path, "/tmp/app.db");
  EXPECT_FALSE(fast->sqlite.durable_against_power_loss);
}

TEST(ParseStoreUrlTest, ASqliteUrlWithoutAPlainFileIsRefused) {
  for (const char* url : {"sqlite:", "sqlite:postgresql://h/db", "sqlite://redis://h"}) {
    auto u = ParseStoreUrl(url);
    EXPECT_FALSE(u.ok()) << url << " gave the path " << (u.ok() ? u->path : "");
    if (!u.ok()) {
      EXPECT_EQ(u.status().code(), Status::Code::kInvalidArgument);
    }
  }
}

TEST(ParseStoreUrlTest, ATypoedSchemeIsRefusedNotTakenForAFileName) {
  for (const char* url : {"sqlit:store.db", "sqlte:/abs/path", "store:x.db"}) {
    auto u = ParseStoreUrl(url);
    ASSERT_FALSE(u.ok()) << url << " gave the SQLite file " << u->path;
    EXPECT_EQ(u.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(u.status().message().find("sqlite:PATH"), std::string::npos) << u.status().ToString();
  }
  // A ':' after the first '/' belongs to the file name.
  auto u = ParseStoreUrl("./2026-12-03T10:00.db");
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(u->path, "./2026-12-03T10:00.db");
}

TEST(ParseBrokerUrlTest, ATypoedSchemeIsRefusedNotTakenForAFileName) {
  for (const char* url : {"queu:q.db", "qeueu:/abs/q.db"}) {
    auto u = ParseBrokerUrl(url);
    ASSERT_FALSE(u.ok()) << url << " gave the queue file " << u->path;
    EXPECT_NE(u.status().message().find("queue:PATH"), std::string::npos) << u.status().ToString();
  }
  auto u = ParseBrokerUrl("/var/lib/idem/q:1.db");
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(u->path, "/var/lib/idem/q:1.db");
}

TEST(ParseBrokerUrlTest, QueueFormsGiveThePath) {
  for (const char* url : {"q.db", "queue:q.db", "queue://q.db"}) {
    auto u = ParseBrokerUrl(url);
    ASSERT_TRUE(u.ok()) << url << ": " << u.status().ToString();
    EXPECT_EQ(u->kind, BrokerUrl::Kind::kEmbedded);
    EXPECT_EQ(u->path, "q.db");
  }
  for (const char* url : {"queue:", "queue:amqp://h", "nats://h"}) {
    auto u = ParseBrokerUrl(url);
    EXPECT_FALSE(u.ok()) << url << " gave the path " << (u.ok() ? u->path : "");
  }
}


}  // namespace
}  // namespace idem
