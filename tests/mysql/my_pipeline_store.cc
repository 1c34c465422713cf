#include "mysql/my_pipeline_store.h"

#include <thread>

#include "mysql/my_test_support.h"
#include "testing/consumer_group.h"

namespace idem::testing {
namespace {

// BACKUP STAGE BLOCK_COMMIT in an admin session lets the batch write but holds
// its COMMIT; once the consumer's session is seen waiting in COMMIT, the admin
// kills it. The COMMIT's answer is lost and it never landed.
std::function<void()> KillConnectionDuringCommit(const std::string&, Store& consumer, Pipeline& p) {
  const int64_t session = SessionId(consumer);
  AdminSession admin;
  EXPECT_TRUE(admin.Run("BACKUP STAGE START"));
  EXPECT_TRUE(admin.Run("BACKUP STAGE BLOCK_COMMIT"));
  std::thread first_batch([&] { p.RunOnce(); });
  const bool in_commit = WaitUntilSessionRunsCommit(session, 20'000);
  EXPECT_TRUE(in_commit) << "the batch never reached COMMIT";
  EXPECT_TRUE(admin.Run("KILL CONNECTION " + std::to_string(session)));
  first_batch.join();
  EXPECT_TRUE(admin.Run("BACKUP STAGE END"));
  return {};
}

}  // namespace

PipelineStore MysqlPipelineStore() {
  PipelineStore s;
  s.name = "mariadb";
  s.fresh_database = &FreshDatabaseUrlOrSkip;
  s.open = [](const std::string& url) { return OpenMyStoreOrFail(url); };
  s.lose_connection_during_commit = &KillConnectionDuringCommit;
  s.server_script = std::string(IDEM_SOURCE_DIR) + "/scripts/servers/mariadb.sh";
  s.test_url = &MysqlTestUrl;
  // A MEMORY table loses its rows when the server stops.
  s.watch_restart = [](const std::string& url, Store& store) -> std::function<bool()> {
    Status made = store.ExecScript("CREATE TABLE server_life (v INT) ENGINE=MEMORY; INSERT INTO server_life VALUES (1)");
    EXPECT_TRUE(made.ok()) << made.ToString();
    const std::string db = DatabaseOf(url);
    return [db] { return AdminInt("SELECT COUNT(*) FROM server_life", db) == 0; };
  };
  return s;
}

}  // namespace idem::testing
