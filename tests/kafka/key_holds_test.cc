// KeyHolds: one record per key out at a time, the key's later records waiting
// in offset order, the other keys flowing; stale assignments forgotten.
#include "source/kafka/key_holds.h"

#include <gtest/gtest.h>

namespace idem::kafka {
namespace {

Message Record(const std::string& key, int64_t offset, int64_t generation = 1, int32_t partition = 0) {
  Message m;
  m.key = key;
  m.payload = key + "@" + std::to_string(offset);
  m.receipt = Receipt{offset, generation, partition, 0};
  return m;
}

std::vector<std::string> Payloads(const std::vector<Message>& ms) {
  std::vector<std::string> out;
  for (const Message& m : ms) out.push_back(m.payload);
  return out;
}

TEST(KeyHoldsTest, AKeysLaterRecordsWaitWhileOtherKeysFlow) {
  KeyHolds h;
  EXPECT_TRUE(h.Admit(Record("A", 0)));
  EXPECT_FALSE(h.Admit(Record("A", 1))) << "A@0 is out";
  EXPECT_TRUE(h.Admit(Record("B", 2))) << "another key flows past the held one";
  EXPECT_FALSE(h.Admit(Record("A", 3)));
  EXPECT_EQ(h.Waiting(0, 0), 2u);

  std::vector<Message> out;
  h.TakeReady(10, out);
  EXPECT_TRUE(out.empty()) << "nothing of A goes before A@0 is settled";
  h.Done(Record("B", 2).receipt);
  h.TakeReady(10, out);
  EXPECT_TRUE(out.empty()) << "settling B frees only B";

  h.Done(Record("A", 0).receipt);
  h.TakeReady(10, out);
  EXPECT_EQ(Payloads(out), std::vector<std::string>{"A@1"}) << "one record of a key at a time, in offset order";
  h.TakeReady(10, out);
  EXPECT_EQ(out.size(), 1u);
  h.Done(Record("A", 1).receipt);
  h.TakeReady(10, out);
  EXPECT_EQ(Payloads(out), (std::vector<std::string>{"A@1", "A@3"}));
  EXPECT_EQ(h.Waiting(0, 0), 0u);
}

TEST(KeyHoldsTest, ReadyRecordsGoOldestFirstUpToTheMax) {
  KeyHolds h;
  for (auto [key, offset] : std::vector<std::pair<std::string, int64_t>>{{"A", 0}, {"B", 1}, {"B", 2}, {"A", 3}})
    (void)h.Admit(Record(key, offset));
  h.Done(Record("A", 0).receipt);
  h.Done(Record("B", 1).receipt);
  std::vector<Message> out;
  h.TakeReady(1, out);
  EXPECT_EQ(Payloads(out), std::vector<std::string>{"B@2"});
  h.TakeReady(5, out);
  EXPECT_EQ(Payloads(out), (std::vector<std::string>{"B@2", "A@3"}));
}

TEST(KeyHoldsTest, ARecordWithoutAKeyIsNeverHeldAndHoldsNothing) {
  KeyHolds h;
  EXPECT_TRUE(h.Admit(Record("", 0)));
  EXPECT_TRUE(h.Admit(Record("", 1))) << "no key, no key order to keep";
  EXPECT_TRUE(h.Admit(Record("A", 2)));
  EXPECT_EQ(h.Waiting(0, 0), 0u);
}

TEST(KeyHoldsTest, ACopyOfARecordOutOrWaitingIsDropped) {
  KeyHolds h;
  EXPECT_TRUE(h.Admit(Record("A", 0)));
  EXPECT_FALSE(h.Admit(Record("A", 1)));
  EXPECT_FALSE(h.Admit(Record("A", 0))) << "fetched again: A@0 is out already";
  EXPECT_FALSE(h.Admit(Record("C", 1)));
  EXPECT_EQ(h.Waiting(0, 0), 1u);
}

TEST(KeyHoldsTest, ASettlementOfAnotherRecordOrAssignmentFreesNothing) {
  KeyHolds h;
  EXPECT_TRUE(h.Admit(Record("A", 5)));
  EXPECT_FALSE(h.Admit(Record("A", 6)));
  h.Done(Record("A", 6).receipt);     // not the one out
  h.Done(Record("A", 5, 0).receipt);  // an earlier assignment's receipt
  std::vector<Message> out;
  h.TakeReady(10, out);
  EXPECT_TRUE(out.empty());
}

TEST(KeyHoldsTest, ANewAssignmentStartsThePartitionAfreshAndStaleOnesAreForgotten) {
  KeyHolds h;
  EXPECT_TRUE(h.Admit(Record("A", 0, 1)));
  EXPECT_FALSE(h.Admit(Record("A", 1, 1)));
  EXPECT_TRUE(h.Admit(Record("A", 0, 2))) << "read again from the committed offset by a new assignment";
  EXPECT_EQ(h.Waiting(0, 0), 0u);

  EXPECT_TRUE(h.Admit(Record("A", 0, 1, /*partition=*/1)));
  EXPECT_FALSE(h.Admit(Record("A", 1, 1, 1)));
  h.DropStale([](const Receipt& r) { return r.partition != 1; });  // partition 1 was revoked
  EXPECT_EQ(h.Waiting(0, 1), 0u);
  EXPECT_TRUE(h.Admit(Record("A", 7, 3, 1)));
}

}  // namespace
}  // namespace idem::kafka
