// `idem run` with the queue in the store's own SQLite file, killed with SIGKILL
// right after a batch committed: the batch's acks committed with its effects,
// so after a restart no committed message is delivered again (no duplicate
// decision, no second delivery) and none is lost or applied twice.
//
// The kill point is held, not timed: the log's pipe is shrunk to one page, and
// once the test has read the first decision line it reads nothing more. The
// pipeline writes a batch's decision lines after its COMMIT and before it
// settles the rest with the queue, and a batch of 200 lines does not fit in the
// pipe, so the process is stuck in that write, between the commit and the
// settle, when it is killed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>

#include <fstream>
#include <string>
#include <vector>

#include "service/running_idem.h"
#include "service/top_ups.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using testing::RunningIdem;
using testing::TempDir;

constexpr int kTopUps = 600;
constexpr int kBatch = 200;

// One number read from the SQLite file, over a connection of its own.
int64_t Scalar(const std::string& file, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_busy_timeout(db, 10'000);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  int64_t n = -1;
  if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

bool IsDecision(const nlohmann::json& j) { return j.value("event", "") == "decision"; }

TEST(RunInStoreAcksSigkillTest, NoCommittedMessageIsDeliveredAgainAfterASigkill) {
  TempDir dir;
  const std::string db = dir.File("idem.db");
  ASSERT_NO_FATAL_FAILURE(testing::CreateTopUpStore(db));
  ASSERT_NO_FATAL_FAILURE(testing::PublishTopUps(db, kTopUps));  // the queue in the store's file
  const std::string config = dir.File("run.toml");
  std::ofstream(config) << "[broker]\nurl = \"queue:" << db << "\"\nvisibility_timeout_ms = 1000\n"
                        << "[store]\nurl = \"sqlite:" << db << "\"\n"
                        << "[service]\nlog_decisions = true\n"
                        << "[[consumer]]\ngroup = \"payments\"\nworkers = 1\nbatch_size = " << kBatch
                        << "\nmax_linger_ms = 0\nhandlers = [\"payments\"]\n";
  const std::string queued = "SELECT COUNT(*) FROM idem_queue";
  const std::string applied = "SELECT COUNT(*) FROM pay_account_flows";

  {
    RunningIdem first({"run", "--config", config}, "", /*pipe_bytes=*/4096);
    const nlohmann::json line = first.WaitFor(IsDecision);
    ASSERT_TRUE(IsDecision(line)) << first.Output();
    first.Signal(SIGKILL);
    ASSERT_EQ(first.Wait(), -1) << "idem ended by itself before the kill:\n" << first.Output();
  }
  // The first batch committed; its acks were in the same commit.
  const int64_t applied_before_kill = Scalar(db, applied);
  ASSERT_EQ(applied_before_kill, kBatch);
  EXPECT_EQ(Scalar(db, queued), kTopUps - applied_before_kill)
      << "the committed batch is still in the queue: its acks did not commit with its effects";

  RunningIdem second({"run", "--config", config});
  const nlohmann::json drained = second.WaitFor([&](const nlohmann::json& j) {
    return j.value("event", "") == "batch" && Scalar(db, queued) == 0;
  });
  ASSERT_EQ(drained.value("event", ""), "batch") << second.Output();
  second.Signal(SIGTERM);
  ASSERT_EQ(second.Wait(), 0) << second.Output();

  int64_t first_decisions = 0, duplicates = 0, redeliveries = 0;
  for (const nlohmann::json& j : second.lines()) {
    if (!IsDecision(j)) continue;
    const std::string kind = j.value("decision", "");
    first_decisions += kind == "FIRST";
    duplicates += kind == "DUPLICATE";
    redeliveries += j.value("delivery", 0) > 1;
  }
  EXPECT_EQ(duplicates, 0) << "messages whose effects had committed were delivered again";
  EXPECT_EQ(redeliveries, 0);
  EXPECT_EQ(first_decisions, kTopUps - applied_before_kill);
  // Every top-up applied exactly once.
  EXPECT_EQ(Scalar(db, applied), kTopUps);
  EXPECT_EQ(Scalar(db, "SELECT COUNT(DISTINCT biz_no) FROM pay_account_flows"), kTopUps);
  EXPECT_EQ(Scalar(db, "SELECT balance_cents FROM pay_accounts WHERE user_id = 'U1'"), kTopUps);
}

}  // namespace
}  // namespace idem
