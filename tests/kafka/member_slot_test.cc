// The group.instance.id of a static member: distinct for two members of one
// group on one host, the same again for a member that restarts.
#include <gtest/gtest.h>

#include "source/kafka/member_slot.h"
#include "testing/test_util.h"

namespace idem::kafka {
namespace {

TEST(KafkaMemberSlotTest, TwoMembersOnOneHostGetTwoIdsAndARestartGetsItsOwnBack) {
  testing::TempDir dir;
  auto first = MemberSlot::Take("host-a", "billing", dir.path());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto second = MemberSlot::Take("host-a", "billing", dir.path());
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(first->id(), "host-a-1");
  EXPECT_EQ(second->id(), "host-a-2") << "a second living member must not share the first one's id";

  // Another group numbers its members on its own.
  auto other = MemberSlot::Take("host-a", "refunds", dir.path());
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_EQ(other->id(), "host-a-1");

  // Ids with another prefix are distinct already: numbered on their own.
  auto named = MemberSlot::Take("pay-eu", "billing", dir.path());
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(named->id(), "pay-eu-1");

  // The first member restarts: it gets its id back, not a third one.
  { MemberSlot gone = std::move(*first); }
  auto restarted = MemberSlot::Take("host-a", "billing", dir.path());
  ASSERT_TRUE(restarted.ok()) << restarted.status().ToString();
  EXPECT_EQ(restarted->id(), "host-a-1");
}

TEST(KafkaMemberSlotTest, IdsHoldOnlyKafkasCharacters) {
  testing::TempDir dir;
  auto slot = MemberSlot::Take("pay host:eu", "g/1", dir.path());
  ASSERT_TRUE(slot.ok()) << slot.status().ToString();
  EXPECT_EQ(slot->id(), "pay_host_eu-1");
}

TEST(KafkaMemberSlotTest, AFolderThatCannotHoldLocksIsRefusedWithWhatToDo) {
  testing::TempDir dir;
  const std::string not_a_folder = dir.File("file");
  { std::FILE* f = std::fopen(not_a_folder.c_str(), "w"); ASSERT_NE(f, nullptr); std::fclose(f); }
  auto slot = MemberSlot::Take("h", "g", not_a_folder);
  ASSERT_FALSE(slot.ok());
  EXPECT_NE(slot.status().ToString().find("static_membership=false"), std::string::npos) << slot.status().ToString();
}

}  // namespace
}  // namespace idem::kafka
