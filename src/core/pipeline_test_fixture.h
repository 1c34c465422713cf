// The pipeline over the real SQLite store and embedded queue, with a manual
// clock: the fixture of the pipeline's unit tests.
#pragma once

#include <gtest/gtest.h>

#include "idem/embedded_queue.h"
#include "idem/pipeline.h"
#include "testing/test_util.h"
#include "sim/sim_env.h"

namespace idem {

class PipelineFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = OpenSqliteStore(dir_.File("store.db"), {}, &env_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
    auto q = EmbeddedQueue::Open(dir_.File("queue.db"), {}, &env_);
    ASSERT_TRUE(q.ok()) << q.status().ToString();
    queue_ = std::move(*q);
    testing::CreateEffectTables(*store_);
  }

  // `store` defaults to the real one; tests that inject failures pass a wrapper of it.
  std::unique_ptr<Pipeline> Make(PipelineOptions o = {}, HandlerSpec spec = testing::PayHandler(),
                                 Store* store = nullptr) {
    o.max_linger_ms = 0;
    auto p = std::make_unique<Pipeline>(queue_.get(), store ? store : store_.get(), &env_, o);
    EXPECT_TRUE(p->Register(std::move(spec)).ok());
    p->SetDecisionSink([this](const Decision& d) { decisions_.push_back(d); });
    return p;
  }

  std::string Publish(const std::string& payload, const std::string& id = {}, const std::string& topic = "pay") {
    Message m;
    m.id = id;
    m.topic = topic;
    m.payload = payload;
    auto r = queue_->Publish(m);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : "";
  }

  // Publishes `middle` between two good payments (A: 1, C: 3) and runs one batch:
  // whatever happens to `middle`, its neighbours are applied.
  BatchReport RunBetweenNeighbours(const std::string& middle, const std::string& id = {}) {
    Publish(R"({"payment_id":"A","amount":1})");
    Publish(middle, id);
    Publish(R"({"payment_id":"C","amount":3})");
    BatchReport r = Make()->RunOnce();
    EXPECT_EQ(r.polled, 3u);
    EXPECT_EQ(r.first, 2u) << "the neighbours are applied";
    EXPECT_EQ(testing::CountEffects(*store_), 2);
    return r;
  }

  // Runs batches until a poll comes back empty (bounded, so a bug cannot hang the test).
  void Drain(Pipeline& p) {
    for (int i = 0; i < 1000; ++i)
      if (p.RunOnce().polled == 0) return;
    FAIL() << "the queue never drained";
  }

  int Count(DecisionKind k) const {
    int n = 0;
    for (const Decision& d : decisions_) n += d.kind == k;
    return n;
  }

  QueueStats Stats() {
    auto s = queue_->Stats();
    EXPECT_TRUE(s.ok());
    return *s;
  }

  Record ReadRecord(const std::string& key, const std::string& group = "default") {
    auto r = store_->ReadRecord(group, key);
    EXPECT_TRUE(r.ok() && r->has_value()) << key;
    return r.ok() && r->has_value() ? **r : Record{};
  }

  testing::TempDir dir_;
  sim::SimEnv env_{/*seed=*/42};
  std::unique_ptr<Store> store_;
  std::unique_ptr<EmbeddedQueue> queue_;
  std::vector<Decision> decisions_;
};

}  // namespace idem
