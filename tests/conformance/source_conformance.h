// The source conformance suite: every broker adapter must pass these tests.
// They pin the delivery contract the pipeline relies on (include/idem/source.h
// and include/idem/dead_letters.h): at-least-once delivery, each settlement kind, a
// move that is durable before the original is acknowledged, abandon, redelivery
// marking, delays, dead letters with their reasons, and late settlements that
// do nothing.
//
// A backend instantiates it with a factory:
//
//   INSTANTIATE_TEST_SUITE_P(Embedded, SourceConformance, ::testing::Values(SourceFactory{...}));
//
// A dead-letter operation a broker cannot honour (a log cannot purge one
// record) is declared in the factory; the suite then checks that the broker
// refuses it with Status::NotSupported and changes nothing.
//
// Time: the suite never sleeps. It waits by polling with a bounded wait, which
// on a broker with a manual Env (the embedded queue under sim::SimEnv)
// moves that clock, and on a real server lets real time pass.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "idem/broker.h"

namespace idem::testing {

struct SourceFactory {
  std::string name;
  // Called once per test before any connection: creates a fresh, empty queue and
  // returns an opaque location that `open` receives. It may GTEST_SKIP() (e.g.
  // when the backend's test server is not configured).
  std::function<std::string()> fresh_queue;
  // Opens another client of the queue at `location`: a second call is a second
  // consumer (or a consumer restarted after a crash). Returns nullptr on failure
  // after recording it with ADD_FAILURE.
  std::function<std::unique_ptr<Broker>(const std::string& location)> open;
  // False for a log (Kafka): Purge of named dead letters must be NotSupported.
  bool purges_one_dead_letter = true;
};

inline std::ostream& operator<<(std::ostream& os, const SourceFactory& f) { return os << f.name; }

class SourceConformance : public ::testing::TestWithParam<SourceFactory> {
 protected:
  void SetUp() override;
  std::unique_ptr<Broker> Connect();

  // Publishes messages with payloads `payloads` on topic "pay" through `broker_`.
  void Publish(const std::vector<std::string>& payloads, int64_t delay_ms = 0);
  // Polls `b` until `n` messages arrived in total or a generous bound of polls
  // passed (a liveness bound, not a timing assertion); returns what arrived.
  std::vector<Message> Take(Broker& b, size_t n);
  // Polls `b` briefly and returns what arrived (expected: nothing).
  std::vector<Message> TakeNothing(Broker& b);
  // Settles `m` as the pipeline would, with the record's `attempts` (1: one handler run).
  Status Settle(Broker& b, const Message& m, Settlement::Kind kind, int64_t delay_ms = 0,
                const std::string& reason = "", int attempts = 1);
  std::vector<DeadLetter> Dead(Broker& b);

  std::string location_;
  std::unique_ptr<Broker> broker_;
};

}  // namespace idem::testing
