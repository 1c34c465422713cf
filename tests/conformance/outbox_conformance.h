// The outbox conformance suite: relays sharing one idem_outbox on a server
// store skip the rows another transaction holds (FOR UPDATE SKIP LOCKED)
// instead of waiting for them, publish each row once, and clean up sent rows
// in bounded batches. A server store instantiates it with a StoreFactory whose
// connections give up on a row lock in bounded time (a lock timeout), so a
// relay that waited fails instead of hanging the suite:
//
//   INSTANTIATE_TEST_SUITE_P(Postgres, OutboxConformance, ::testing::Values(StoreFactory{...}));
#pragma once

#include <gtest/gtest.h>

#include "conformance/store_conformance.h"

namespace idem::testing {

class OutboxConformance : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override {
    location_ = GetParam().fresh_database();
    if (IsSkipped()) return;
    store_ = Connect();
    ASSERT_NE(store_, nullptr);
  }
  std::unique_ptr<Store> Connect() { return GetParam().open(location_, Env::Default()); }
  std::string location_;
  std::unique_ptr<Store> store_;
};

}  // namespace idem::testing
