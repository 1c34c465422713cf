#include "conformance/outbox_conformance.h"

#include <algorithm>
#include <functional>

#include "idem/handler.h"
#include "idem/publisher.h"
#include "ops/outbox/relay.h"
#include "testing/forwarding_store.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

// Keeps what it was asked to publish; the broker always confirms.
class RecordingPublisher final : public Publisher {
 public:
  Status PublishBatch(std::vector<Message>& messages, int64_t) override {
    for (const Message& m : messages) keys.push_back(m.key);
    return Status::OK();
  }
  std::vector<std::string> keys;
};

// Runs `meanwhile` once, right after the claim's locking SELECT returned: the
// relay on this store then holds the locks of the rows it selected.
class PauseInsideTheClaim final : public ForwardingStore {
 public:
  explicit PauseInsideTheClaim(Store* inner) : ForwardingStore(inner) {}
  std::function<void()> meanwhile;

 private:
  class Tx final : public ForwardingTx {
   public:
    Tx(std::unique_ptr<StoreTx> inner, PauseInsideTheClaim* store) : ForwardingTx(std::move(inner)), store_(store) {}
    Result<Rows> Query(std::string_view sql, const std::vector<Value>& params) override {
      auto rows = inner_->Query(sql, params);
      if (sql.find("SKIP LOCKED") != std::string_view::npos && store_->meanwhile) {
        auto run = std::move(store_->meanwhile);
        store_->meanwhile = nullptr;
        run();
      }
      return rows;
    }

   private:
    PauseInsideTheClaim* store_;
  };
  std::unique_ptr<StoreTx> Wrap(std::unique_ptr<StoreTx> tx) override {
    return std::make_unique<Tx>(std::move(tx), this);
  }
};

void EmitGrants(Store& store, Env& env, int n) {
  auto tx = store.Begin();
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  Message in;
  const std::string key = "pay:x";
  Payload payload;
  HandlerContext ctx{in, key, **tx, env, payload};
  for (int i = 1; i <= n; ++i) ASSERT_TRUE(ctx.Emit({"points.grant", "grant:" + std::to_string(i), "{}", {}}).ok());
  ASSERT_TRUE((*tx)->Commit().ok());
}

TEST_P(OutboxConformance, ASecondRelayTakesTheRowsTheFirstDoesNotHoldWithoutWaiting) {
  Store* store_a = store_.get();
  auto store_b = Connect();
  ASSERT_TRUE(store_b);
  Env& env = *Env::Default();
  EmitGrants(*store_a, env, 6);

  PauseInsideTheClaim paused(store_a);
  RecordingPublisher to_a, to_b;
  outbox::RelayOptions small;
  small.batch_size = 2;
  outbox::Relay relay_a(paused, to_a, small);
  outbox::Relay relay_b(*store_b, to_b);
  const int64_t now = env.NowMs();
  Result<outbox::RelayStep> step_b = Status::Permanent("relay B never ran");
  // Relay B's whole step runs while A holds grant:1 and grant:2, on this same
  // thread: had B waited for those locks it would fail on the lock wait timeout.
  paused.meanwhile = [&] { step_b = relay_b.RelayOnce(now); };
  auto step_a = relay_a.RelayOnce(now);

  ASSERT_TRUE(step_b.ok()) << step_b.status().ToString();
  ASSERT_TRUE(step_a.ok()) << step_a.status().ToString();
  EXPECT_EQ(to_a.keys, (std::vector<std::string>{"grant:1", "grant:2"}));
  // B never takes a row A holds, and takes the rest: A's claim locks only its batch.
  EXPECT_EQ(to_b.keys, (std::vector<std::string>{"grant:3", "grant:4", "grant:5", "grant:6"}));

  // Once A's claim committed, the relays publish the rest, each row once.
  for (int i = 0; i < 4 && to_a.keys.size() + to_b.keys.size() < 6; ++i) {
    ASSERT_TRUE(relay_b.RelayOnce(now).ok());
    ASSERT_TRUE(relay_a.RelayOnce(now).ok());
  }
  std::vector<std::string> all = to_a.keys;
  all.insert(all.end(), to_b.keys.begin(), to_b.keys.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<std::string>{"grant:1", "grant:2", "grant:3", "grant:4", "grant:5", "grant:6"}));
  auto stats = outbox::ReadOutboxStats(*store_a);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->pending, 0);
  EXPECT_EQ(stats->sent, 6);
}

// A row another transaction holds is skipped, not waited for; the others are published.
TEST_P(OutboxConformance, TheRelaySkipsARowAnotherTransactionHolds) {
  Store* store = store_.get();
  auto other = Connect();
  ASSERT_TRUE(other);
  Env& env = *Env::Default();
  EmitGrants(*store, env, 3);
  auto holder = other->Begin();
  ASSERT_TRUE(holder.ok());
  // By primary key: InnoDB then locks that one row only.
  auto held = (*holder)->Query("SELECT id FROM idem_outbox WHERE id = (SELECT MIN(id) FROM idem_outbox) FOR UPDATE", {});
  ASSERT_TRUE(held.ok()) << held.status().ToString();

  RecordingPublisher broker;
  outbox::Relay relay(*store, broker);
  auto step = relay.RelayOnce(env.NowMs());
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_EQ(step->published, 2);
  EXPECT_EQ(broker.keys, (std::vector<std::string>{"grant:2", "grant:3"})) << "the held row is skipped, not waited for";
  (*holder)->Rollback();
  step = relay.RelayOnce(env.NowMs());
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_EQ(step->published, 1);
  EXPECT_EQ(broker.keys, (std::vector<std::string>{"grant:2", "grant:3", "grant:1"}));
}

TEST_P(OutboxConformance, SentRowsAreCleanedUpInBoundedBatches) {
  Store* store = store_.get();
  Env& env = *Env::Default();
  EmitGrants(*store, env, 5);
  RecordingPublisher broker;
  outbox::RelayOptions o;
  o.sent_retention_ms = 1'000;
  o.cleanup_batch = 3;
  outbox::Relay relay(*store, broker, o);
  const int64_t now = env.NowMs();
  auto published = relay.RelayOnce(now);
  ASSERT_TRUE(published.ok()) << published.status().ToString();
  EXPECT_EQ(published->published, 5);
  EXPECT_EQ(published->cleaned, 0) << "sent rows are kept for the retention";

  auto first = relay.RelayOnce(now + 1'001);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->cleaned, 3);
  auto second = relay.RelayOnce(now + 1'002);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->cleaned, 2);
  EXPECT_EQ(QueryInt(*store, "SELECT COUNT(*) FROM idem_outbox"), 0);
}

}  // namespace
}  // namespace idem::testing
