// The store conformance suite: every Store backend must pass these tests.
// A backend instantiates it with a factory that opens connections to one fresh
// database (each call returns another connection to the same database):
//
//   INSTANTIATE_TEST_SUITE_P(Sqlite, StoreConformance, ::testing::Values(StoreFactory{...}));
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "idem/store.h"

namespace idem::testing {

struct StoreFactory {
  std::string name;
  // Called once per test before any connection: creates a fresh, empty database
  // and returns an opaque location that `open` receives. It may GTEST_SKIP()
  // (e.g. when the backend's test server is not configured).
  std::function<std::string()> fresh_database;
  std::function<std::unique_ptr<Store>(const std::string& location, Env* env)> open;
};

inline std::ostream& operator<<(std::ostream& os, const StoreFactory& f) { return os << f.name; }

class StoreConformance : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override;
  std::unique_ptr<Store> Connect();
  std::string location_;
  std::unique_ptr<Store> store_;
};

}  // namespace idem::testing
