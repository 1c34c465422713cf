// SIGTERM in the middle of a run: the service stops polling, commits and
// settles the batch in hand and exits 0; nothing is lost or applied twice, and
// the next start finishes the rest. Synchronised on the service's log lines.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>

#include "idem/embedded_queue.h"
#include "payments/events.h"
#include "payments/schema.h"
#include "service/running_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using testing::RunningIdem;
using testing::TempDir;

constexpr int kTopUps = 2000;
constexpr int kUsers = 5;

std::string Config(const TempDir& dir) {
  const std::string path = dir.File("run.toml");
  std::ofstream(path) << "[broker]\nurl = \"queue:" << dir.File("q.db") << "\"\n"
                      << "[store]\nurl = \"sqlite:" << dir.File("s.db") << "\"\n"
                      << "[[consumer]]\ngroup = \"payments\"\nworkers = 2\nbatch_size = 10\nmax_linger_ms = 0\n"
                      << "handlers = [\"payments\"]\n";
  return path;
}

// Accounts at 0, then kTopUps top-ups, every tenth one published twice (a
// producer resend): the expected balance of each user.
std::vector<int64_t> Publish(const TempDir& dir) {
  auto store = OpenSqliteStore(dir.File("s.db"), {}, Env::Default());
  EXPECT_TRUE(store.ok());
  EXPECT_TRUE(payments::CreateSchema(**store, payments::SchemaVariant::kGuarded).ok());
  std::vector<payments::AccountSeed> accounts;
  for (int u = 0; u < kUsers; ++u) accounts.push_back({"U" + std::to_string(u), 0});
  EXPECT_TRUE(payments::SeedData(**store, accounts, {}, {}).ok());
  auto queue = EmbeddedQueue::Open(dir.File("q.db"), {}, Env::Default());
  EXPECT_TRUE(queue.ok());
  std::vector<int64_t> expected(kUsers, 0);
  std::vector<Message> batch;
  for (int i = 0; i < kTopUps; ++i) {
    payments::TopUp t{"T" + std::to_string(i), "U" + std::to_string(i % kUsers), i + 1};
    expected[i % kUsers] += t.amount_cents;
    Message m;
    m.topic = payments::kTopicTopUp;
    m.payload = payments::ToPayload(t);
    batch.push_back(m);
    if (i % 10 == 0) batch.push_back(m);
  }
  EXPECT_TRUE((*queue)->PublishBatch(batch).ok());
  return expected;
}

int64_t SumOf(const std::vector<nlohmann::json>& lines, const std::string& event, const std::string& field) {
  int64_t sum = 0;
  for (const auto& j : lines)
    if (j.value("event", "") == event) sum += j.value(field, int64_t{0});
  return sum;
}

// One ledger row per top-up and the balances they add up to.
void ExpectEveryTopUpOnce(const TempDir& dir, const std::vector<int64_t>& expected) {
  auto store = OpenSqliteStore(dir.File("s.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(testing::QueryInt(**store, "SELECT COUNT(*) FROM pay_account_flows WHERE type = 'TOPUP'"), kTopUps);
  for (int u = 0; u < kUsers; ++u)
    EXPECT_EQ(testing::QueryInt(**store, "SELECT balance_cents FROM pay_accounts WHERE user_id = 'U" +
                                             std::to_string(u) + "'"),
              expected[u]);
}

TEST(RunSignalTest, SigtermMidRunSettlesTheBatchExitsZeroAndTheNextStartFinishes) {
  TempDir dir;
  const std::vector<int64_t> expected = Publish(dir);
  const std::string config = Config(dir);

  RunningIdem first({"run", "--config", config});
  const auto batch = first.WaitForEvent("batch");
  ASSERT_EQ(batch.value("event", ""), "batch") << first.Output();
  first.Signal(SIGTERM);
  ASSERT_EQ(first.Wait(), 0) << first.Output();
  EXPECT_EQ(first.lines().back().value("event", ""), "stopped") << first.Output();
  EXPECT_EQ(SumOf(first.lines(), "worker_stopped", "failed_batches"), 0) << first.Output();
  // Retention ran its first pass at start (nothing is 90 days old here).
  EXPECT_TRUE(std::any_of(first.lines().begin(), first.lines().end(), [](const nlohmann::json& j) {
    return j.value("event", "") == "sweep" && j.value("deleted", -1) == 0;
  })) << first.Output();

  // Every batch that was polled was settled: nothing is left leased to the dead process.
  auto queue = EmbeddedQueue::Open(dir.File("q.db"), {}, Env::Default());
  ASSERT_TRUE(queue.ok());
  auto stats = (*queue)->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->in_flight, 0) << first.Output();
  const int64_t first_run = SumOf(first.lines(), "worker_stopped", "first");

  RunningIdem second({"run", "--config", config, "--until-idle"});
  ASSERT_EQ(second.Wait(), 0) << second.Output();
  const int64_t second_run = SumOf(second.lines(), "worker_stopped", "first");
  EXPECT_EQ(first_run + second_run, kTopUps) << "each top-up applied exactly once across the two runs";

  ExpectEveryTopUpOnce(dir, expected);
  stats = (*queue)->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->ready + stats->in_flight + stats->delayed + stats->dead, 0);
}

TEST(RunSignalTest, SecondSignalAbandonsAndExitsOneAndNothingIsLost) {
  TempDir dir;
  const std::vector<int64_t> expected = Publish(dir);
  const std::string config = Config(dir);

  RunningIdem first({"run", "--config", config});
  ASSERT_EQ(first.WaitForEvent("batch").value("event", ""), "batch") << first.Output();
  first.Signal(SIGINT);
  ASSERT_EQ(first.WaitForEvent("signal").value("event", ""), "signal") << first.Output();
  first.Signal(SIGINT);
  const int code = first.Wait();
  // The first signal may already have let both workers settle and stop; then
  // the second one finds nothing to abandon and the exit is clean.
  const bool abandoned = std::any_of(first.lines().begin(), first.lines().end(), [](const nlohmann::json& j) {
                           return j.value("event", "") == "stopped" && j.value("abandoned", false);
                         });
  EXPECT_EQ(code, abandoned ? 1 : 0) << first.Output();

  // Whatever was abandoned is deliverable again at once: the next start finishes everything.
  RunningIdem second({"run", "--config", config, "--until-idle"});
  ASSERT_EQ(second.Wait(), 0) << second.Output();
  ExpectEveryTopUpOnce(dir, expected);
  EXPECT_EQ(SumOf(first.lines(), "worker_stopped", "first") + SumOf(second.lines(), "worker_stopped", "first"),
            kTopUps);
}

}  // namespace
}  // namespace idem
