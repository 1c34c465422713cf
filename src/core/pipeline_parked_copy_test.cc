// A message whose record already says FAILED must still reach the terminal
// queue when it comes back: the consumer may have died between the commit that
// recorded the failure and the move to the terminal queue.
#include <gtest/gtest.h>

#include "idem/embedded_queue.h"
#include "idem/pipeline.h"
#include "idem/store.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using testing::ManualEnv;
using testing::TempDir;

// Loses its first Settle, as a consumer killed right after the commit would.
class LosesFirstSettle final : public Source {
 public:
  explicit LosesFirstSettle(Source* inner) : inner_(inner) {}
  Result<std::vector<Message>> Poll(size_t max, int64_t wait_ms) override { return inner_->Poll(max, wait_ms); }
  Status Settle(const std::vector<Settlement>& s) override {
    if (lost_) return inner_->Settle(s);
    lost_ = true;
    return Status::Unavailable("the consumer died before settling");
  }
  Status Abandon() override { return inner_->Abandon(); }

 private:
  Source* inner_;
  bool lost_ = false;
};

TEST(PipelineParkedCopy, CopyOfAParkedMessageIsParkedAgainNotDropped) {
  TempDir dir;
  ManualEnv env;
  auto store = OpenSqliteStore(dir.File("store.db"), {}, &env);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  testing::CreateEffectTables(**store);
  EmbeddedQueueOptions qo;
  qo.visibility_timeout_ms = 1'000;
  auto queue = EmbeddedQueue::Open(dir.File("queue.db"), qo, &env);
  ASSERT_TRUE(queue.ok()) << queue.status().ToString();
  Message m;
  m.topic = "pay";
  m.payload = R"({"payment_id":"P1","amount":5,"fail":"permanent"})";
  ASSERT_TRUE((*queue)->Publish(m).ok());

  LosesFirstSettle source(queue->get());
  Pipeline pipeline(&source, store->get(), &env, PipelineOptions{});
  ASSERT_TRUE(pipeline.Register(testing::PayHandler()).ok());

  BatchReport first = pipeline.RunOnce();
  EXPECT_EQ(first.parked, 1u);
  EXPECT_FALSE(first.status.ok());  // the move to the terminal queue never happened

  env.Advance(2'000);  // the lease runs out; the queue hands the message out again
  BatchReport again = pipeline.RunOnce();
  ASSERT_EQ(again.polled, 1u);
  EXPECT_EQ(again.parked, 1u);
  EXPECT_EQ(again.duplicate, 0u);
  EXPECT_TRUE(again.status.ok()) << again.status.ToString();

  auto dead = (*queue)->List(10, 0);
  ASSERT_TRUE(dead.ok());
  ASSERT_EQ(dead->size(), 1u);
  EXPECT_NE((*dead)[0].reason.find("bad payment"), std::string::npos) << (*dead)[0].reason;
  EXPECT_EQ(testing::CountEffects(**store), 0);
}

}  // namespace
}  // namespace idem
