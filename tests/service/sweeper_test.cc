// Retention: records older than the window go, in bounded batches; nothing
// inside the window is touched; a window shorter than the longest redelivery
// window is refused, in the library, the configuration check and the CLI.
#include <gtest/gtest.h>

#include <fstream>

#include "ops/record_listing.h"
#include "ops/sweeper.h"
#include "service/config.h"
#include "service/service.h"
#include "payments/service_handlers.h"
#include "testing/test_util.h"
#include "sim/sim_env.h"

namespace idem {
namespace {

using testing::TempDir;

constexpr int64_t kDayMs = 24LL * 3600 * 1000;

// A SUCCEEDED record for `key` last seen at `at_ms`.
void Record(Store& store, const std::string& key, int64_t at_ms, RecordStatus status = RecordStatus::kSucceeded) {
  auto tx = store.Begin();
  ASSERT_TRUE(tx.ok());
  ClaimRequest req{key, "fp", "m-" + key};
  auto claimed = (*tx)->Claim("g", std::span<const ClaimRequest>(&req, 1), at_ms, at_ms + 60'000);
  ASSERT_TRUE(claimed.ok()) << claimed.status().ToString();
  if (status != RecordStatus::kProcessing) {
    ASSERT_TRUE((*tx)->Complete("g", key, status, "", "", at_ms).ok());
  }
  ASSERT_TRUE((*tx)->Commit().ok());
}

bool Has(Store& store, const std::string& key) {
  auto r = store.ReadRecord("g", key);
  EXPECT_TRUE(r.ok());
  return r.ok() && r->has_value();
}

TEST(SweeperTest, DeletesOnlyRecordsOlderThanTheWindowInBoundedBatches) {
  TempDir dir;
  sim::SimEnv env{/*seed=*/42, /*start_ms=*/1'700'000'000'000};
  auto store = OpenSqliteStore(dir.File("s.db"), {}, &env);
  ASSERT_TRUE(store.ok());
  const int64_t now = env.NowMs();
  ops::SweepOptions o{.window_ms = 10 * kDayMs, .interval_ms = 3'600'000, .batch_rows = 3};
  for (int i = 0; i < 10; ++i) Record(**store, "old" + std::to_string(i), now - o.window_ms - 1 - i);
  Record(**store, "edge", now - o.window_ms);          // exactly at the window: kept
  Record(**store, "young", now - o.window_ms + 1);
  Record(**store, "old-but-failed", now - 20 * kDayMs, RecordStatus::kFailed);

  auto sweeper = ops::Sweeper::Create(store->get(), o, /*min_window_ms=*/o.window_ms);
  ASSERT_TRUE(sweeper.ok()) << sweeper.status().ToString();
  std::vector<int64_t> deleted;
  ops::SweepStep step;
  do {
    step = sweeper->RunIfDue(now);
    ASSERT_TRUE(step.ran);
    ASSERT_TRUE(step.status.ok()) << step.status.ToString();
    deleted.push_back(step.deleted);
  } while (!step.pass_done);
  EXPECT_EQ(deleted, (std::vector<int64_t>{3, 3, 3, 2})) << "11 old records (10 + the failed one), 3 per statement";
  EXPECT_EQ(step.pass_deleted, 11);
  EXPECT_TRUE(Has(**store, "edge"));
  EXPECT_TRUE(Has(**store, "young"));
  EXPECT_FALSE(Has(**store, "old0"));
  EXPECT_FALSE(Has(**store, "old-but-failed"));

  // Not due again until the interval has passed.
  EXPECT_FALSE(sweeper->RunIfDue(now + o.interval_ms - 1).ran);
  EXPECT_TRUE(sweeper->RunIfDue(now + o.interval_ms).ran);
}

TEST(SweeperTest, ProcessingRecordsAreNeverSwept) {
  TempDir dir;
  sim::SimEnv env{/*seed=*/42, /*start_ms=*/1'700'000'000'000};
  auto store = OpenSqliteStore(dir.File("s.db"), {}, &env);
  ASSERT_TRUE(store.ok());
  Record(**store, "held", env.NowMs() - 400 * kDayMs, RecordStatus::kProcessing);
  auto sweeper = ops::Sweeper::Create(store->get(), {.window_ms = kDayMs}, kDayMs);
  ASSERT_TRUE(sweeper.ok());
  EXPECT_EQ(sweeper->RunIfDue(env.NowMs()).deleted, 0);
  EXPECT_TRUE(Has(**store, "held"));
  // And an operator sees it as stuck: its lease ran out long ago.
  auto stuck = ops::ListRecords(**store, {}, env.NowMs());
  ASSERT_TRUE(stuck.ok());
  ASSERT_EQ(stuck->size(), 1u);
  EXPECT_EQ((*stuck)[0].key, "held");
}

TEST(SweeperTest, AWindowShorterThanTheRedeliveryWindowIsRefused) {
  TempDir dir;
  sim::SimEnv env{/*seed=*/42, /*start_ms=*/1'700'000'000'000};
  auto store = OpenSqliteStore(dir.File("s.db"), {}, &env);
  ASSERT_TRUE(store.ok());
  auto refused = ops::Sweeper::Create(store->get(), {.window_ms = kDayMs}, kDayMs + 1);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("shorter than the longest redelivery window"), std::string::npos);
}

TEST(SweeperTest, TheLongestRedeliveryWindowAddsRetryDelaysLeaseAndRedisTtl) {
  auto c = service::ParseConfig(
      "[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[fast_filter]\nurl = \"redis://h\"\nttl_ms = 100000000\n"
      "[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\nretry_delays_ms = [1000, 2000, 3000]\nlease_ms = 5000\n",
      "f.toml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  // Five attempts make four retries: the last delay repeats for the fourth.
  EXPECT_EQ(service::LongestRedeliveryWindowMs(*c), 1000 + 2000 + 3000 + 3000 + 5000 + 100'000'000);
}

TEST(SweeperTest, ConfigCheckAndCliRefuseAShortWindowWithItsPosition) {
  TempDir dir;
  const std::string text = "[broker]\nurl = \"queue:" + dir.File("q.db") + "\"\n[store]\nurl = \"sqlite:" +
                           dir.File("s.db") +
                           "\"\n[retention]\nwindow_days = 30\n[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\n"
                           "retry_delays_ms = [864000000, 864000000, 864000000]\nmax_attempts = 4\n";
  auto c = service::ParseConfig(text, "f.toml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  service::HandlerRegistry registry;
  ASSERT_TRUE(payments::RegisterServiceHandlers(registry).ok());
  Status s = service::CheckConfig(*c, registry);
  EXPECT_EQ(s.message().rfind("f.toml:5:1: [retention] window_days = 30 is shorter than the longest redelivery window", 0), 0u)
      << s.ToString();

  const std::string file = dir.File("run.toml");
  std::ofstream(file) << text;
  auto sweep = testing::RunProcess({IDEM_CLI_PATH, "records", "sweep", "--config", file});
  EXPECT_EQ(sweep.exit_code, 2) << sweep.out << sweep.err;
  EXPECT_NE(sweep.err.find("shorter than the longest redelivery window"), std::string::npos) << sweep.err;
}

TEST(SweeperTest, CliSweepsOldRecordsAndListsWhatNeedsALook) {
  TempDir dir;
  {
    sim::SimEnv past(/*seed=*/42, /*start_ms=*/1'700'000'000'000);  // 2023: long before today
    auto store = OpenSqliteStore(dir.File("s.db"), {}, &past);
    ASSERT_TRUE(store.ok());
    Record(**store, "swept", past.NowMs());
    Record(**store, "parked", past.NowMs(), RecordStatus::kFailed);
    Record(**store, "stuck", past.NowMs(), RecordStatus::kProcessing);
  }
  const std::string file = dir.File("run.toml");
  std::ofstream(file) << "[broker]\nurl = \"queue:" << dir.File("q.db") << "\"\n[store]\nurl = \"sqlite:"
                      << dir.File("s.db") << "\"\n[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\n";
  auto list = testing::RunProcess({IDEM_CLI_PATH, "records", "list", "--store", "sqlite:" + dir.File("s.db")});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("g  parked  FAILED"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("g  stuck  PROCESSING (stuck)"), std::string::npos) << list.out;
  EXPECT_EQ(list.out.find("swept"), std::string::npos) << list.out;

  auto sweep = testing::RunProcess({IDEM_CLI_PATH, "records", "sweep", "--config", file});
  EXPECT_EQ(sweep.exit_code, 0) << sweep.err;
  EXPECT_NE(sweep.out.find("swept 2 record(s)"), std::string::npos) << sweep.out;
  auto show = testing::RunProcess(
      {IDEM_CLI_PATH, "records", "show", "--store", "sqlite:" + dir.File("s.db"), "--group", "g", "--key", "stuck"});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("PROCESSING (lease expired: stuck)"), std::string::npos) << show.out;
  auto gone = testing::RunProcess(
      {IDEM_CLI_PATH, "records", "show", "--store", "sqlite:" + dir.File("s.db"), "--group", "g", "--key", "swept"});
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_NE(gone.err.find("swept by retention"), std::string::npos) << gone.err;
}

}  // namespace
}  // namespace idem
