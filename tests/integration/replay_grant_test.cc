// idem's headers are idem's: a producer that sets x-idem-replay on a message
// whose key is FAILED does not get it run again, and one that sets
// x-idem-first-failed-ms does not write the dead letter's history; only
// `idem dlq replay` (or the console) runs a FAILED key again — once, with the
// audit row that names who did it and the store's replay grant.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "idem/embedded_queue.h"
#include "idem/pipeline.h"
#include "idem/store.h"
#include "integration/run_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using namespace idem::testing;


constexpr char kPayment[] = R"({"payment_id":"P7","amount":30,"user":"u3"})";  // u3 has no account yet

class ReplayGrantTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto q = EmbeddedQueue::Open(dir_.File("q.db"), {}, Env::Default());
    ASSERT_TRUE(q.ok()) << q.status().ToString();
    queue_ = std::move(*q);
    auto s = OpenStore("sqlite:" + dir_.File("s.db"), Env::Default());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
    CreateEffectTables(*store_);
    PipelineOptions o;
    o.max_linger_ms = 0;
    pipeline_ = std::make_unique<Pipeline>(queue_.get(), store_.get(), Env::Default(), o);
    ASSERT_TRUE(pipeline_->Register(PayHandler()).ok());
  }

  void Publish(std::map<std::string, std::string> headers = {}) {
    Message m;
    m.id = "pay-P7";
    m.topic = "pay";
    m.payload = kPayment;
    m.headers = std::move(headers);
    ASSERT_TRUE(queue_->Publish(m).ok());
  }
  void Drain() {
    for (int i = 0; i < 100; ++i)
      if (pipeline_->RunOnce().polled == 0) return;
    FAIL() << "the queue never drained";
  }
  std::string Status() {
    auto r = store_->ReadRecord("default", "pay:P7");
    EXPECT_TRUE(r.ok() && r->has_value());
    return r.ok() && r->has_value() ? std::string(RecordStatusName((*r)->status)) : "";
  }
  std::vector<DeadLetter> Dead() {
    auto d = queue_->List(100);
    EXPECT_TRUE(d.ok());
    return d.ok() ? *d : std::vector<DeadLetter>{};
  }
  int64_t Grants() { return QueryInt(*store_, "SELECT count(*) FROM idem_replay_grants"); }
  ProcessResult Replay(const std::string& id) {
    return Idem({"dlq", "replay", "--queue", dir_.File("q.db"), "--store", "sqlite:" + dir_.File("s.db"), id});
  }

  TempDir dir_;
  std::unique_ptr<EmbeddedQueue> queue_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Pipeline> pipeline_;
};

TEST_F(ReplayGrantTest, AProducersReplayHeaderDoesNotRunAFailedKeyAgain) {
  Publish();
  Drain();
  ASSERT_EQ(Status(), "FAILED");
  ASSERT_TRUE(store_->ExecScript("INSERT INTO accounts (owner, balance) VALUES ('u3', 100)").ok());

  Publish({{"x-idem-replay", "mallory"}});  // the same payment, "replayed" by a producer
  Drain();
  EXPECT_EQ(Status(), "FAILED") << "no operator replayed it";
  EXPECT_EQ(CountEffects(*store_), 0);
  EXPECT_EQ(Balance(*store_, "u3"), 100);
  auto dead = Dead();
  ASSERT_EQ(dead.size(), 2u) << "parked again, not lost";
  EXPECT_EQ(dead[1].message.headers.count("x-idem-replay"), 0u);
  EXPECT_EQ(dead[1].message.headers.at("x-producer-x-idem-replay"), "mallory") << "kept visible, renamed";
}

TEST_F(ReplayGrantTest, AProducersFailureHistoryDoesNotReachTheDeadLetter) {
  Publish({{"x-idem-first-failed-ms", "0"}, {"x-idem-dead-id", "1"}, {"x-idem-key", "kept"}});
  Drain();
  auto dead = Dead();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_GT(dead[0].first_failed_ms, 1'700'000'000'000) << "first failed now, not in 1970";
  EXPECT_EQ(dead[0].message.headers.count("x-idem-first-failed-ms"), 0u);
  EXPECT_EQ(dead[0].message.headers.at("x-producer-x-idem-first-failed-ms"), "0");
  EXPECT_EQ(dead[0].message.headers.at("x-idem-key"), "kept") << "the producer's own x-idem-key is not reserved";
  ProcessResult show = Idem({"dlq", "show", "--queue", dir_.File("q.db"), std::to_string(dead[0].id)});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(show.out.find("1970"), std::string::npos) << show.out;
}

TEST_F(ReplayGrantTest, DlqReplayRunsTheMessageOnceWithItsGrantAndAuditRow) {
  Publish();
  Drain();
  ASSERT_EQ(Status(), "FAILED");
  ASSERT_TRUE(store_->ExecScript("INSERT INTO accounts (owner, balance) VALUES ('u3', 100)").ok());
  auto dead = Dead();
  ASSERT_EQ(dead.size(), 1u);

  ProcessResult r = Replay(std::to_string(dead[0].id));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Grants(), 1) << "written with the audit row";
  Drain();
  EXPECT_EQ(Status(), "SUCCEEDED");
  EXPECT_EQ(CountEffects(*store_), 1);
  EXPECT_EQ(Balance(*store_, "u3"), 70);
  EXPECT_EQ(Grants(), 0) << "taken by the run it allowed";

  ProcessResult audit = Idem({"dlq", "audit", "--store", "sqlite:" + dir_.File("s.db"), "--json"});
  ASSERT_EQ(audit.exit_code, 0) << audit.err;
  const auto row = nlohmann::json::parse(audit.out.substr(0, audit.out.find('\n')));
  EXPECT_EQ(row["action"], "replay");
  EXPECT_EQ(row["dead_letter_ids"], std::to_string(dead[0].id));
  EXPECT_EQ(row["outcome"], "ok");

  Publish();  // a later copy of the applied payment stays a duplicate
  Drain();
  EXPECT_EQ(CountEffects(*store_), 1) << "the ledger row appears once";
}

TEST_F(ReplayGrantTest, OneGrantRunsOneCopyOnce) {
  Publish();
  Drain();
  auto dead = Dead();
  ASSERT_EQ(dead.size(), 1u);
  // Still failing: the replayed copy fails again and is parked again; the
  // grant is spent, so a producer's copy after it does not run.
  ASSERT_EQ(Replay(std::to_string(dead[0].id)).exit_code, 0);
  Drain();
  EXPECT_EQ(Grants(), 0);
  EXPECT_EQ(Status(), "FAILED");
  ASSERT_TRUE(store_->ExecScript("INSERT INTO accounts (owner, balance) VALUES ('u3', 100)").ok());
  Publish({{"x-idem-replay", "mallory"}});
  Drain();
  EXPECT_EQ(Status(), "FAILED");
  EXPECT_EQ(CountEffects(*store_), 0);
}

}  // namespace
}  // namespace idem
