// PartitionOffsets: the commit point never passes an unsettled offset; gaps are normal.
#include "source/kafka/partition_offsets.h"

#include <gtest/gtest.h>

namespace idem::kafka {
namespace {

TEST(PartitionOffsetsTest, CommitsOnlyTheContiguousSettledPrefix) {
  PartitionOffsets p(1);
  for (int64_t o : {10, 11, 12, 13}) EXPECT_FALSE(p.Fetched(o).redelivered);
  p.Settled(11);
  p.Settled(13);
  EXPECT_EQ(p.CommitPoint(), 10) << "10 is unsettled: nothing past it";
  p.Settled(10);
  EXPECT_EQ(p.CommitPoint(), 12) << "12 is still unsettled";
  p.Settled(12);
  EXPECT_EQ(p.CommitPoint(), 14);
  p.Committed(14);
  EXPECT_EQ(p.CommitPoint(), -1) << "nothing new to commit";
}

TEST(PartitionOffsetsTest, GapsInOffsetsAreNormal) {
  PartitionOffsets p(1);
  for (int64_t o : {3, 7, 8}) p.Fetched(o);  // 4-6: transaction markers or compacted away
  p.Settled(3);
  EXPECT_EQ(p.CommitPoint(), 7);
  p.Settled(8);
  p.Settled(7);
  EXPECT_EQ(p.CommitPoint(), 9);
}

TEST(PartitionOffsetsTest, FetchedAgainAfterASeekBack) {
  PartitionOffsets p(1);
  for (int64_t o : {0, 1, 2}) p.Fetched(o);
  p.Settled(1);
  // Seek back to 0 (abandon): 0 and 2 come again as redeliveries, 1 is skipped.
  EXPECT_EQ(p.LowestUnsettled(), 0);
  auto d0 = p.Fetched(0);
  EXPECT_TRUE(d0.redelivered);
  EXPECT_EQ(d0.count, 2);
  EXPECT_TRUE(p.Fetched(1).skip);
  EXPECT_TRUE(p.Fetched(2).redelivered);
}

TEST(PartitionOffsetsTest, CopiesBelowThePreviousOwnersHandOutsAreRedeliveries) {
  PartitionOffsets p(1, /*delivered_before=*/5);
  EXPECT_TRUE(p.Fetched(4).redelivered);
  EXPECT_EQ(p.Fetched(5).count, 1);
  EXPECT_EQ(p.DeliveredUpTo(), 6);
}

TEST(PartitionOffsetsTest, SettlingSomethingNotHandedOutDoesNothing) {
  PartitionOffsets p(1);
  p.Fetched(0);
  p.Settled(5);
  EXPECT_EQ(p.CommitPoint(), -1) << "a settlement of an offset never handed out committed it";
  EXPECT_EQ(p.UnsettledCount(), 1u);
}

}  // namespace
}  // namespace idem::kafka
