// The pipeline conformance suite: the guard pipeline over a server store, with
// effects counted in the database — copies applied once, consumers racing over
// one database, a COMMIT whose answer or connection is lost, and (in
// PipelineRestartConformance, run alone) the server restarted mid-transaction.
// A store instantiates it with a PipelineStore: how to reach a fresh database
// and the hooks that lose its connection or restart its server.
//
//   INSTANTIATE_TEST_SUITE_P(Postgres, PipelineConformance, ::testing::Values(PostgresPipelineStore()));
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "idem/embedded_queue.h"
#include "idem/handler.h"
#include "idem/pipeline.h"
#include "idem/store.h"
#include "testing/consumer_group.h"
#include "testing/test_util.h"

namespace idem::testing {

struct PipelineStore {
  std::string name;
  // Creates a fresh, empty database and returns the location `open` receives.
  // It may GTEST_SKIP() (the store's test server is not configured).
  std::function<std::string()> fresh_database;
  // Another connection to the database at `location`; null after a test failure.
  std::function<std::unique_ptr<Store>(const std::string& location)> open;

  // Runs `p`'s first batch (over `consumer`, a store opened for it) so that
  // the connection is lost while its COMMIT runs and the COMMIT does not land.
  // Returns what else to check once the pipeline has drained (may be empty).
  std::function<std::function<void()>(const std::string& location, Store& consumer, Pipeline& p)>
      lose_connection_during_commit;

  // The server's script (scripts/servers/*.sh) and the URL the tests use: the
  // restart test skips unless the script manages that server.
  std::string server_script;
  std::function<std::string()> test_url;
  // Called before the restart: returns whether the server has restarted since.
  std::function<std::function<bool()>(const std::string& location, Store& store)> watch_restart;
};

inline std::ostream& operator<<(std::ostream& os, const PipelineStore& s) { return os << s.name; }

class PipelineConformance : public ::testing::TestWithParam<PipelineStore> {
 protected:
  void SetUp() override;
  std::unique_ptr<Store> Connect() { return GetParam().open(location_); }
  std::unique_ptr<EmbeddedQueue> OpenQueue();
  static PipelineOptions Options();
  std::unique_ptr<Pipeline> MakePipeline(Source* source, Store* store);
  void Publish(const std::string& payment_id, int64_t amount, const std::string& msg_id);
  // Runs batches until nothing is left to deliver (released messages come back after their delay).
  void Drain(Pipeline& p);
  // The first column of the first row of `sql`, read through the test's own connection.
  int64_t Sql(const std::string& sql) { return QueryInt(*store_, sql); }

  TempDir dir_;
  std::string location_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<EmbeddedQueue> queue_;
};

inline void PipelineConformance::SetUp() {
  location_ = GetParam().fresh_database();
  if (IsSkipped()) return;
  store_ = Connect();
  ASSERT_NE(store_, nullptr);
  CreateEffectTables(*store_);
  queue_ = OpenQueue();
  ASSERT_NE(queue_, nullptr);
}

inline std::unique_ptr<EmbeddedQueue> PipelineConformance::OpenQueue() {
  auto q = EmbeddedQueue::Open(dir_.File("queue.db"), {}, Env::Default());
  EXPECT_TRUE(q.ok()) << q.status().ToString();
  return q.ok() ? std::move(*q) : nullptr;
}

inline PipelineOptions PipelineConformance::Options() {
  PipelineOptions o;
  o.max_linger_ms = 0;
  o.batch_size = 5;
  o.unavailable_backoff_min_ms = 5;  // released messages come back quickly in tests
  o.unavailable_backoff_max_ms = 50;
  return o;
}

inline std::unique_ptr<Pipeline> PipelineConformance::MakePipeline(Source* source, Store* store) {
  auto p = std::make_unique<Pipeline>(source, store, Env::Default(), Options());
  EXPECT_TRUE(p->Register(PayHandler()).ok());
  return p;
}

inline void PipelineConformance::Publish(const std::string& payment_id, int64_t amount, const std::string& msg_id) {
  Message m;
  m.id = msg_id;
  m.topic = "pay";
  m.payload = R"({"payment_id":")" + payment_id + R"(","amount":)" + std::to_string(amount) + "}";
  ASSERT_TRUE(queue_->Publish(m).ok());
}

inline void PipelineConformance::Drain(Pipeline& p) {
  ASSERT_TRUE(WaitFor(
      [&] {
        p.RunOnce();
        return QueueSettled(*queue_);
      },
      30'000))
      << "the queue never settled";
}

// Takes the shared test server down: each store's restart executable, which
// runs alone, instantiates it.
class PipelineRestartConformance : public PipelineConformance {};

}  // namespace idem::testing
