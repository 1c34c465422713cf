// The payments workload the `idem run` tests start from: a store with the
// payments schema and account U1 at 0, and top-ups of one cent to U1.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "idem/embedded_queue.h"
#include "idem/store.h"
#include "payments/events.h"
#include "payments/schema.h"

namespace idem::testing {

// Creates the SQLite store at `file`: the payments tables (guarded), account U1 at 0.
inline void CreateTopUpStore(const std::string& file) {
  auto store = OpenSqliteStore(file, {}, Env::Default());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE(payments::CreateSchema(**store, payments::SchemaVariant::kGuarded).ok());
  ASSERT_TRUE(payments::SeedData(**store, {{"U1", 0}}, {}, {}).ok());
}

// Publishes top-ups T0 … T(n-1), one cent each to U1, into the embedded queue at `queue_file`.
inline void PublishTopUps(const std::string& queue_file, int n) {
  auto queue = EmbeddedQueue::Open(queue_file, {}, Env::Default());
  ASSERT_TRUE(queue.ok()) << queue.status().ToString();
  std::vector<Message> batch;
  for (int i = 0; i < n; ++i) {
    Message m;
    m.topic = payments::kTopicTopUp;
    m.payload = payments::ToPayload(payments::TopUp{"T" + std::to_string(i), "U1", 1});
    batch.push_back(m);
  }
  ASSERT_TRUE((*queue)->PublishBatch(batch).ok());
}

}  // namespace idem::testing
