// `create_schema = false` in [store]: a runtime without DDL rights. `idem run`
// refuses a store that lacks idem's tables with exit 2, naming what is missing
// and how to create it, before anything is consumed or created; once a DBA ran
// `idem schema migrate`, the same file starts and consumes. On SQLite.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>

#include "idem/embedded_queue.h"
#include "integration/run_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using testing::Idem;
using testing::TempDir;

std::string WriteConfig(const TempDir& dir) {
  const std::string path = dir.File("pay.toml");
  std::ofstream(path) << "[broker]\n"
                      << "url = \"queue:" << dir.File("q.db") << "\"\n"
                      << "[store]\n"
                      << "url = \"sqlite:" << dir.File("s.db") << "\"\n"
                      << "create_schema = false\n"
                      << "setup_sql = \"CREATE TABLE IF NOT EXISTS ledger (pay_id TEXT NOT NULL UNIQUE)\"\n"
                      << "[[consumer]]\n"
                      << "group = \"payments\"\n"
                      << "max_linger_ms = 0\n"
                      << "[[consumer.handler]]\n"
                      << "topic = \"pay\"\n"
                      << "key = [\"pay_id\"]\n"
                      << "[[consumer.handler.step]]\n"
                      << "insert_once = \"ledger\"\n"
                      << "columns = { pay_id = \"pay_id\" }\n";
  return path;
}

// The business database exists (the DBA made it); idem's tables do not.
void CreateBusinessOnlyStore(const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE ledger (pay_id TEXT NOT NULL UNIQUE)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
}

int64_t IdemTables(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  int64_t n = -1;
  if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'idem%'", -1, &st, nullptr) ==
          SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

TEST(CreateSchemaFalseTest, AStoreWithoutIdemsTablesIsRefusedUntilADbaMigratesIt) {
  TempDir dir;
  const std::string config = WriteConfig(dir);
  CreateBusinessOnlyStore(dir.File("s.db"));
  {
    auto queue = EmbeddedQueue::Open(dir.File("q.db"), {}, Env::Default());
    ASSERT_TRUE(queue.ok()) << queue.status().ToString();
    Message m;
    m.topic = "pay";
    m.payload = R"({"pay_id":"P1"})";
    std::vector<Message> batch{m};
    ASSERT_TRUE((*queue)->PublishBatch(batch).ok());
  }

  const testing::ProcessResult refused = Idem({"run", "--config", config, "--until-idle"});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("missing tables: idem_schema, idem_records"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("idem schema migrate --store URL"), std::string::npos) << refused.err;
  EXPECT_EQ(IdemTables(dir.File("s.db")), 0) << "nothing of idem's may be created";
  auto before = EmbeddedQueue::Open(dir.File("q.db"), {}, Env::Default());
  ASSERT_TRUE(before.ok());
  EXPECT_EQ((*before)->Stats()->ready, 1) << "the message must not be consumed";
  before->reset();

  const testing::ProcessResult migrate = Idem({"schema", "migrate", "--store", "sqlite:" + dir.File("s.db")});
  ASSERT_EQ(migrate.exit_code, 0) << migrate.out << migrate.err;
  const testing::ProcessResult run = Idem({"run", "--config", config, "--until-idle"});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  auto after = EmbeddedQueue::Open(dir.File("q.db"), {}, Env::Default());
  ASSERT_TRUE(after.ok());
  EXPECT_EQ((*after)->Stats()->ready, 0) << "consumed once the tables are there";
}

}  // namespace
}  // namespace idem
