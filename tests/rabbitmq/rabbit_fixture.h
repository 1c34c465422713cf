// Shared setup for the tests against the real RabbitMQ server that
// scripts/servers/rabbitmq.sh starts (IDEM_TEST_AMQP_URL). Each test gets its
// own queue name, so tests are independent and may run in parallel, and its own
// SQLite store in a temporary folder; effects are checked in that store.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "idem/broker.h"
#include "idem/pipeline.h"
#include "idem/store.h"
#include "testing/test_util.h"

namespace idem::testing {

// Runs a program without a shell. Returns its exit status (or 128 + signal) and
// its stdout and stderr together.
struct CommandResult {
  int status = -1;
  std::string out;
};
CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& stdin_text = "");

// A raw rabbitmq-c client playing a third party (not idem): it reads one message
// from a queue and acks or rejects it.
struct RawGet {
  std::string body;
  std::string routing_key;
  bool redelivered = false;
};
// basic.get one message from `queue`; with `reject`, basic.reject(requeue=false),
// else basic.ack. nullopt when the queue is empty.
std::optional<RawGet> RawTakeOne(const std::string& base_url, const std::string& queue, bool reject);
// Whether `queue` exists, asked with a passive queue.declare (which creates nothing).
bool RawQueueExists(const std::string& base_url, const std::string& queue);

// A Source that records every message it hands out.
class RecordingSource final : public Source {
 public:
  explicit RecordingSource(Source* inner) : inner_(inner) {}
  Result<std::vector<Message>> Poll(size_t max, int64_t wait_ms) override {
    auto got = inner_->Poll(max, wait_ms);
    if (got.ok()) seen.insert(seen.end(), got->begin(), got->end());
    return got;
  }
  Status Settle(const std::vector<Settlement>& s) override {
    if (before_settle) before_settle(s);
    return inner_->Settle(s);
  }
  Status Abandon() override { return inner_->Abandon(); }
  std::vector<Message> seen;
  std::function<void(const std::vector<Settlement>&)> before_settle;  // runs before each Settle

 private:
  Source* inner_;
};

class RabbitTest : public ::testing::Test {
 protected:
  void SetUp() override;

  // The test's queue URL, with extra query parameters ("prefetch=3").
  std::string Url(const std::string& params = "") const;
  std::unique_ptr<Broker> OpenQueue(const std::string& params = "");
  // A pipeline over `source` with PayHandler for topic "pay" and a short ladder.
  std::unique_ptr<Pipeline> NewPipeline(Source* source, PipelineOptions options = Options());
  static PipelineOptions Options();

  // Publishes with amqp-publish from amqp-tools, as an external producer would.
  void AmqpToolsPublish(const std::string& body, const std::string& topic = "pay");
  // Publishes with idem's own PublishBatch.
  void Publish(const std::vector<std::string>& bodies, const std::string& topic = "pay");

  // Runs the pipeline until `done()` holds or `timeout_ms` passes; returns done().
  bool RunUntil(Pipeline& pipeline, const std::function<bool()>& done, int64_t timeout_ms = 30'000);
  // Stats through a fresh connection (after the consumers are closed).
  QueueStats Stats();
  std::vector<DeadLetter> Dead();

  // Rows in `effects` for one payment (PayHandler keys are "pay:<payment_id>").
  int64_t Effects(const std::string& payment_id) { return CountEffects(*store_, "pay:" + payment_id); }

  std::string base_url_;
  std::string queue_;
  TempDir dir_;
  std::unique_ptr<Store> store_;
};

// Skips the test when no broker was started for it.
#define IDEM_REQUIRE_RABBITMQ()                                                                       \
  do {                                                                                               \
    if (base_url_.empty())                                                                           \
      GTEST_SKIP() << "IDEM_TEST_AMQP_URL is not set: start the test broker with "                  \
                      "scripts/servers/rabbitmq.sh start and source build/test-servers.env "        \
                      "(scripts/test.sh does both)";                                                 \
  } while (0)

}  // namespace idem::testing
