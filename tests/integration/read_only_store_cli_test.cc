// The commands that read a store (records list/show, outbox stats, dlq audit)
// and records sweep, pointed where no idem store is: a missing file, an
// embedded-queue file, a file that is not SQLite. Each is refused with exit 1
// and a message that names what is there, prints no report, and leaves the
// path as it was: no new file, no table added to the queue, not a byte changed.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "idem/embedded_queue.h"
#include "integration/run_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using namespace idem::testing;

// The names in sqlite_master, read with SQLite itself (opening it as a store would create tables).
std::vector<std::string> SchemaNames(const std::string& path) {
  sqlite3* db = nullptr;
  std::vector<std::string> names;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master ORDER BY name", -1, &stmt, nullptr), SQLITE_OK);
  while (sqlite3_step(stmt) == SQLITE_ROW) names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return names;
}

std::string Bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ReadOnlyStoreCliTest : public ::testing::Test {
 protected:
  // Every command that must not create a store, aimed at `path`.
  std::vector<std::vector<std::string>> Commands(const std::string& path) {
    const std::string url = "sqlite:" + path;
    const std::string config = dir_.File("run.toml");
    std::ofstream(config) << "[broker]\nurl = \"queue:" << dir_.File("q.db") << "\"\n[store]\nurl = \"" << url
                          << "\"\n[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\n";
    return {{"records", "list", "--store", url},
            {"records", "list", "--store", url, "--json"},
            {"records", "show", "--store", url, "--group", "g", "--key", "k"},
            {"outbox", "stats", "--store-url", url},
            {"outbox", "stats", "--store-url", url, "--json"},
            {"dlq", "audit", "--store", url},
            {"dlq", "audit", "--store", url, "--json"},
            {"records", "sweep", "--config", config}};
  }
  static std::string Name(const std::vector<std::string>& args) { return args[0] + " " + args[1]; }

  TempDir dir_;
};

TEST_F(ReadOnlyStoreCliTest, AMissingStoreFileIsRefusedAndNotCreated) {
  const std::string typo = dir_.File("stroe.db");
  for (const auto& args : Commands(typo)) {
    ProcessResult r = Idem(args);
    EXPECT_EQ(r.exit_code, 1) << Name(args) << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("the SQLite store '" + typo + "' does not exist: check the path"), std::string::npos)
        << Name(args) << ": " << r.err;
    EXPECT_EQ(r.out, "") << Name(args) << ": no report of an empty store";
    EXPECT_FALSE(std::filesystem::exists(typo)) << Name(args) << " created the store file";
  }
}

TEST_F(ReadOnlyStoreCliTest, AQueueFileIsNotAnIdemStoreAndGetsNoTable) {
  const std::string queue = dir_.File("q.db");
  ASSERT_TRUE(EmbeddedQueue::Open(queue, {}, Env::Default()).ok());
  const std::vector<std::string> before = SchemaNames(queue);
  ASSERT_FALSE(before.empty());
  for (const auto& args : Commands(queue)) {
    ProcessResult r = Idem(args);
    EXPECT_EQ(r.exit_code, 1) << Name(args) << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("'" + queue + "' is not an idem store (no idem_records table): check the store URL"),
              std::string::npos)
        << Name(args) << ": " << r.err;
    EXPECT_EQ(r.out, "") << Name(args);
    EXPECT_EQ(SchemaNames(queue), before) << Name(args) << " changed the queue file's tables";
  }
}

TEST_F(ReadOnlyStoreCliTest, AFileThatIsNotSqliteIsNamedAsSuchNotAsDamaged) {
  const std::string notes = dir_.File("notes.txt");
  const std::string text = "these are an operator's notes, not a database; they are long enough for a header\n";
  std::ofstream(notes) << text;
  for (const auto& args : Commands(notes)) {
    ProcessResult r = Idem(args);
    EXPECT_EQ(r.exit_code, 1) << Name(args) << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("'" + notes + "' is not an SQLite database"), std::string::npos) << Name(args) << ": " << r.err;
    EXPECT_EQ(r.err.find("damaged"), std::string::npos) << Name(args) << ": " << r.err;
    EXPECT_EQ(r.out, "") << Name(args);
    EXPECT_EQ(Bytes(notes), text) << Name(args) << " wrote to the file";
  }
}

// The same commands on a real store still answer (and create nothing new).
TEST_F(ReadOnlyStoreCliTest, AnIdemStoreIsReadAsBefore) {
  const std::string store = dir_.File("s.db");
  ASSERT_TRUE(OpenSqliteStore(store, {}, Env::Default()).ok());
  const std::vector<std::string> before = SchemaNames(store);
  for (const auto& args : Commands(store)) {
    if (args[1] == "show") continue;  // no record for that key: its own refusal, tested elsewhere
    ProcessResult r = Idem(args);
    EXPECT_EQ(r.exit_code, 0) << Name(args) << "\n" << r.out << r.err;
  }
  // dlq audit on a store where nothing was audited yet lists nothing, without creating idem_audit.
  EXPECT_EQ(SchemaNames(store), before);
}

}  // namespace
}  // namespace idem
