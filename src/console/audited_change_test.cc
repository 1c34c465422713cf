// Replay and purge through ApplyAudited: the audit row names the identity as it
// was established, a read-only identity changes nothing, and the row exists
// before the broker is touched.
#include "console/audited_change.h"

#include <gtest/gtest.h>

#include "idem/embedded_queue.h"
#include "testing/test_util.h"

namespace idem::console {
namespace {

using testing::QueryInt;
using testing::TempDir;

class AuditedChangeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore(dir_.File("s.db"), {}, Env::Default());
    ASSERT_TRUE(store.ok());
    store_ = std::move(*store);
    auto audit = AuditLog::Open(store_.get());
    ASSERT_TRUE(audit.ok()) << audit.status().ToString();
    audit_.emplace(std::move(*audit));
    auto queue = EmbeddedQueue::Open(dir_.File("q.db"), {}, Env::Default());
    ASSERT_TRUE(queue.ok());
    queue_ = std::move(*queue);
    Message m;
    m.topic = "pay";
    m.payload = R"({"payment_id":"P1"})";
    auto id = queue_->ParkRejected(m, "account missing");
    ASSERT_TRUE(id.ok());
    dead_id_ = *id;
  }
  int64_t Dead() { return static_cast<int64_t>(queue_->List(100).value().size()); }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::optional<AuditLog> audit_;
  std::unique_ptr<EmbeddedQueue> queue_;
  int64_t dead_id_ = 0;
};

TEST_F(AuditedChangeTest, ReplayIsAuditedWithTheIdentityAndHowItWasEstablished) {
  const Identity alice{"alice", Role::kOperator, "console login"};
  auto n = ApplyAudited(*queue_, *audit_, alice, {DeadLetterAction::kReplay, {dead_id_}, "queue:q.db"}, Env::Default());
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 1);
  EXPECT_EQ(Dead(), 0);
  auto rows = audit_->List(10);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  const AuditEntry& e = (*rows)[0];
  EXPECT_EQ(e.operator_name, "alice");
  EXPECT_EQ(e.authenticated_by, "console login");
  EXPECT_EQ(e.action, "replay");
  EXPECT_EQ(e.dead_letter_ids, std::to_string(dead_id_));
  EXPECT_EQ(e.changed, 1);
  EXPECT_EQ(e.outcome, "ok");
  EXPECT_EQ(e.broker, "queue:q.db");
  EXPECT_GT(e.at_ms, 0);
}

TEST_F(AuditedChangeTest, ReadOnlyIdentityChangesNothingAndWritesNoRow) {
  const Identity viewer{"vera", Role::kReadOnly, "console login"};
  auto n = ApplyAudited(*queue_, *audit_, viewer, {DeadLetterAction::kPurge, {}, "queue:q.db"}, Env::Default());
  EXPECT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("read-only"), std::string::npos);
  EXPECT_EQ(Dead(), 1);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_audit"), 0);
}

TEST_F(AuditedChangeTest, PurgeOfAllIsListedNewestFirst) {
  const Identity bob{"bob", Role::kOperator, "operator secret"};
  ASSERT_TRUE(ApplyAudited(*queue_, *audit_, bob, {DeadLetterAction::kReplay, {dead_id_}, "q"}, Env::Default()).ok());
  auto n = ApplyAudited(*queue_, *audit_, bob, {DeadLetterAction::kPurge, {}, "q"}, Env::Default());
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 0) << "the replay emptied the dead-letter queue";
  auto rows = audit_->List(10);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].action, "purge");
  EXPECT_EQ((*rows)[0].dead_letter_ids, "all");
  EXPECT_EQ((*rows)[1].changed, 1);
  auto older = audit_->List(10, (*rows)[0].id);
  ASSERT_TRUE(older.ok());
  ASSERT_EQ(older->size(), 1u);
  EXPECT_EQ((*older)[0].action, "replay");
}

TEST_F(AuditedChangeTest, AnUnknownIdChangesNothingAndIsAuditedAsNotFound) {
  const Identity bob{"bob", Role::kOperator, "operator secret"};
  for (DeadLetterAction action : {DeadLetterAction::kReplay, DeadLetterAction::kPurge}) {
    auto n = ApplyAudited(*queue_, *audit_, bob, {action, {dead_id_, 424242}, "q"}, Env::Default());
    ASSERT_FALSE(n.ok()) << ActionName(action);
    EXPECT_TRUE(n.status().IsNotFound()) << n.status().ToString();
    EXPECT_NE(n.status().message().find("no dead letter with id 424242"), std::string::npos) << n.status().message();
    EXPECT_EQ(Dead(), 1) << "the dead letter that exists was not " << ActionName(action) << "ed either";
  }
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_audit WHERE outcome = 'not_found' AND changed = 0"), 2);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_audit WHERE outcome <> 'not_found'"), 0);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_replay_grants"), 0)
      << "no grant for a replay that did not run";
}

}  // namespace
}  // namespace idem::console
