#include "console/login_throttle.h"

#include <gtest/gtest.h>

#include "sim/sim_env.h"

namespace idem::console {
namespace {

TEST(LoginThrottleTest, TheWaitGrowsAfterTheFreeFailuresAndASuccessClearsIt) {
  sim::SimEnv env(/*seed=*/1);
  LoginThrottle t(&env);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(t.Admit("alice", "10.0.0.1"), 0) << "free failure " << i;
  EXPECT_EQ(t.Admit("alice", "10.0.0.1"), 1'000);
  env.Advance(1'000);
  EXPECT_EQ(t.Admit("alice", "10.0.0.1"), 0) << "the wait is over: one more try";
  EXPECT_EQ(t.Admit("alice", "10.0.0.1"), 2'000) << "and the next wait is twice as long";
  env.Advance(2'000);
  EXPECT_EQ(t.Admit("alice", "10.0.0.1"), 0);
  EXPECT_EQ(t.Admit("alice", "10.0.0.1"), 4'000);
  t.Succeeded("alice", "10.0.0.1");
  EXPECT_EQ(t.Admit("alice", "10.0.0.1"), 0) << "a success starts over";
}

TEST(LoginThrottleTest, AnOperatorIsThrottledFromEveryAddressAndAnAddressForEveryName) {
  sim::SimEnv env(/*seed=*/1);
  LoginThrottle t(&env);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(t.Admit("alice", "10.0.0." + std::to_string(i)), 0);
  EXPECT_GT(t.Admit("alice", "10.0.0.99"), 0) << "a new address does not reset alice's count";
  EXPECT_EQ(t.Admit("vera", "10.0.0.99"), 0) << "other operators are not held up";
  for (int i = 0; i < 3; ++i) ASSERT_EQ(t.Admit("", "10.9.9.9"), 0);  // names that are no operator
  EXPECT_GT(t.Admit("vera", "10.9.9.9"), 0) << "the address is held up, whatever name it tries";
}

TEST(LoginThrottleTest, TheWaitStartsWhenTheFailureIsKnown) {
  sim::SimEnv env(/*seed=*/1);
  LoginThrottle t(&env);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(t.Admit("alice", "10.0.0.1"), 0);
  env.Advance(700);  // checking the third secret took this long
  t.Failed("alice", "10.0.0.1");
  EXPECT_EQ(t.Admit("alice", "10.0.0.1"), 1'000);
}

TEST(LoginThrottleTest, TheWaitStopsAtItsMaximum) {
  sim::SimEnv env(/*seed=*/1);
  LoginThrottle t(&env);
  int64_t wait = 0;
  for (int i = 0; i < 40; ++i) {
    env.Advance(wait);
    ASSERT_EQ(t.Admit("alice", "10.0.0.1"), 0);
    wait = t.Admit("alice", "10.0.0.1");
  }
  EXPECT_EQ(wait, ThrottlePolicy{}.max_wait_ms);
}

TEST(LoginThrottleTest, TheAddressTableIsBounded) {
  sim::SimEnv env(/*seed=*/1);
  ThrottlePolicy policy;
  policy.max_addresses = 4;
  LoginThrottle t(&env, policy);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(t.Admit("", "10.0.0.1"), 0);
  env.Advance(1);
  for (int i = 2; i < 100; ++i) ASSERT_EQ(t.Admit("", "10.0.0." + std::to_string(i)), 0);
  EXPECT_EQ(t.addresses(), 4u) << "the quietest were dropped to make room";
  for (int i = 0; i < 2; ++i) ASSERT_EQ(t.Admit("", "10.0.0.99"), 0);
  EXPECT_GT(t.Admit("", "10.0.0.99"), 0) << "an address still remembered keeps its count";
}

TEST(LoginThrottleTest, OldFailuresAreForgotten) {
  sim::SimEnv env(/*seed=*/1);
  LoginThrottle t(&env);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(t.Admit("alice", "10.0.0.1"), 0);
  ASSERT_GT(t.Admit("alice", "10.0.0.1"), 0);
  env.Advance(ThrottlePolicy{}.forget_after_ms);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(t.Admit("alice", "10.0.0.1"), 0) << "three free failures again";
}

}  // namespace
}  // namespace idem::console
