#include "store/dead_letter_table.h"

#include <gtest/gtest.h>

#include "testing/test_util.h"

namespace idem {
namespace {

TEST(StoreDeadLetters, AParkedMessageReadsBackByteExact) {
  testing::TempDir dir;
  auto store = OpenSqliteStore(dir.File("s.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  Message m;
  m.id = "m-1";
  m.topic = "pay";
  m.key = "P1";
  m.payload = std::string("{\"pad\":\"\xff\x00 end\"}", 16);  // not UTF-8, with a NUL
  m.headers = {{"x-tenant", "acme"}};
  auto id = store_dead_letters::Park(**store, "g", m, "bad payment", 3, 1'700'000'000'000);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  auto second = store_dead_letters::Park(**store, "g", m, "again", 1, 1'700'000'000'001);
  ASSERT_TRUE(second.ok());
  EXPECT_GT(*second, *id);

  auto list = store_dead_letters::List(**store, 10, 0);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 2u);
  const DeadLetter& d = (*list)[0];
  EXPECT_EQ(d.id, *id);
  EXPECT_EQ(d.message.payload, m.payload);
  EXPECT_EQ(d.message.id, "m-1");
  EXPECT_EQ(d.message.topic, "pay");
  EXPECT_EQ(d.message.key, "P1");
  EXPECT_EQ(d.message.headers, m.headers);
  EXPECT_EQ(d.reason, "bad payment");
  EXPECT_EQ(d.attempts, 3);
  EXPECT_EQ(d.last_failed_ms, 1'700'000'000'000);
  auto after = store_dead_letters::List(**store, 10, *id);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 1u);
  EXPECT_EQ((*after)[0].reason, "again");

  auto one = store_dead_letters::Get(**store, *second);
  ASSERT_TRUE(one.ok());
  ASSERT_TRUE(one->has_value());
  EXPECT_EQ((*one)->reason, "again");
  auto none = store_dead_letters::Get(**store, 999);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

}  // namespace
}  // namespace idem
