// `idem run` killed with SIGKILL in the middle of a run: every message the
// queue no longer holds (acknowledged) has its decision line in the log file.
// The consumer writes a batch's decision lines with write(2) before it
// acknowledges the batch, so no acknowledged message can lose its line.
// Synchronised on the queue's contents, never on time.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "idem/embedded_queue.h"
#include "service/top_ups.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using testing::TempDir;

constexpr int kTopUps = 3000;

// How many messages the queue file holds, read over one open connection so
// that a change is seen right after the commit that makes it.
class QueueCounter {
 public:
  explicit QueueCounter(const std::string& queue_file) {
    EXPECT_EQ(sqlite3_open_v2(queue_file.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_busy_timeout(db_, 10'000);
    EXPECT_EQ(sqlite3_prepare_v2(db_, "SELECT COUNT(*) FROM idem_queue", -1, &st_, nullptr), SQLITE_OK);
  }
  ~QueueCounter() {
    sqlite3_finalize(st_);
    sqlite3_close(db_);
  }
  size_t Count() {
    size_t n = 0;
    if (sqlite3_step(st_) == SQLITE_ROW) n = static_cast<size_t>(sqlite3_column_int64(st_, 0));
    sqlite3_reset(st_);
    return n;
  }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* st_ = nullptr;
};

// The msg_id of every message the queue file still holds.
std::set<std::string> QueuedIds(const std::string& queue_file) {
  std::set<std::string> ids;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(queue_file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_busy_timeout(db, 10'000);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT msg_id FROM idem_queue", -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) ids.insert(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  EXPECT_EQ(rc, SQLITE_DONE) << sqlite3_errmsg(db);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return ids;
}

// `idem run --config FILE` with its stdout appended to `log_file`.
pid_t StartIdem(const std::string& config, const std::string& log_file) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) _exit(126);
    execl(IDEM_CLI_PATH, IDEM_CLI_PATH, "run", "--config", config.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// The msg_id of every decision line in the log.
std::set<std::string> LoggedDecisions(const std::string& log_file) {
  std::set<std::string> ids;
  std::ifstream in(log_file);
  for (std::string line; std::getline(in, line);) {
    // The last line may be cut short by the kill; every complete line is JSON.
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded() && j.value("event", "") == "decision") ids.insert(j.value("msg_id", ""));
  }
  return ids;
}

TEST(DecisionLogSigkillTest, EveryAcknowledgedMessageHasItsDecisionLineAfterASigkill) {
  TempDir dir;
  const std::string queue_file = dir.File("q.db"), log_file = dir.File("idem.log");
  ASSERT_NO_FATAL_FAILURE(testing::CreateTopUpStore(dir.File("s.db")));
  ASSERT_NO_FATAL_FAILURE(testing::PublishTopUps(queue_file, kTopUps));
  const std::string config = dir.File("run.toml");
  std::ofstream(config) << "[broker]\nurl = \"queue:" << queue_file << "\"\n"
                        << "[store]\nurl = \"sqlite:" << dir.File("s.db") << "\"\n"
                        << "[service]\nlog_decisions = true\n"
                        // Large batches: writing a batch's lines takes a good part of its time,
                        // so a kill right after an acknowledgement finds them being written.
                        << "[[consumer]]\ngroup = \"payments\"\nworkers = 1\nbatch_size = 200\nmax_linger_ms = 0\n"
                        << "handlers = [\"payments\"]\n";
  const std::set<std::string> published = QueuedIds(queue_file);
  ASSERT_EQ(published.size(), static_cast<size_t>(kTopUps));

  // Several kills, each the moment the queue shows an acknowledgement, so that
  // a consumer which acknowledged before writing its lines is caught between.
  size_t remaining = published.size();
  QueueCounter counter(queue_file);
  for (int round = 0; round < 8 && remaining > 0; ++round) {
    const size_t at_start = remaining;
    const pid_t pid = StartIdem(config, log_file);
    ASSERT_GT(pid, 0);
    while (counter.Count() == at_start) {
    }
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "idem ended by itself before the kill: see " << log_file;

    const std::set<std::string> queued = QueuedIds(queue_file);
    remaining = queued.size();
    const std::set<std::string> logged = LoggedDecisions(log_file);
    size_t acked = 0, missing = 0;
    std::string example;
    for (const std::string& id : published) {
      if (queued.count(id)) continue;
      ++acked;
      if (!logged.count(id)) {
        ++missing;
        if (example.empty()) example = id;
      }
    }
    EXPECT_GT(acked, 0u);
    EXPECT_EQ(missing, 0u) << "round " << round << ": " << missing << " of " << acked
                           << " acknowledged messages have no decision line, e.g. msg_id " << example;
  }
}

}  // namespace
}  // namespace idem
