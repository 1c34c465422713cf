#include "cache/redis/redis_url.h"

#include <gtest/gtest.h>

namespace idem::redis {
namespace {

TEST(RedisUrl, ReadsHostPortDbAndCredentials) {
  auto e = ParseRedisUrl("redis://127.0.0.1:6380");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->host, "127.0.0.1");
  EXPECT_EQ(e->port, 6380);
  EXPECT_EQ(e->db, 0);
  EXPECT_EQ(e->password, "");

  e = ParseRedisUrl("redis://alice:s%40cret%3A1@cache.local/3");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->host, "cache.local");
  EXPECT_EQ(e->port, 6379);
  EXPECT_EQ(e->user, "alice");
  EXPECT_EQ(e->password, "s@cret:1");
  EXPECT_EQ(e->db, 3);

  e = ParseRedisUrl("redis://:pw@[::1]:7000/");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->host, "::1");
  EXPECT_EQ(e->port, 7000);
  EXPECT_EQ(e->user, "");
  EXPECT_EQ(e->password, "pw");
}

TEST(RedisUrl, RefusesWhatItCannotUseAndShowsTheExpectedForm) {
  for (const char* bad : {"http://x", "redis://", "redis://h:0", "redis://h:99999", "redis://h:p", "redis://h/x",
                          "redis://[::1", "redis://u:%zz@h"}) {
    auto e = ParseRedisUrl(bad);
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_EQ(e.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(e.status().message().find("expected redis://"), std::string::npos) << e.status().ToString();
  }
}

}  // namespace
}  // namespace idem::redis
