#include "testing/schema_fixture.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "idem/store_access.h"

namespace idem::testing {

std::string OldSchemaFixture(const std::string& engine) {
  const auto dir = std::filesystem::path(IDEM_SOURCE_DIR) / "tests" / "fixtures" / "schema_b6ca331";
  std::ifstream in(dir / (engine + ".sql"));
  EXPECT_TRUE(in.good()) << "cannot read the fixture " << (dir / (engine + ".sql"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void CreateOldSqliteStore(const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, OldSchemaFixture("sqlite").c_str(), nullptr, nullptr, &error);
  EXPECT_EQ(rc, SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

void LoadOldSchema(const std::string& engine, const std::string& url) {
  auto store = OpenStore(url, Env::Default(), StoreAccess::kAsIs);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  Status s = (*store)->ExecScript(OldSchemaFixture(engine));
  ASSERT_TRUE(s.ok()) << s.ToString();
}

ProcessResult RunIdemSchema(const std::string& cli, const std::string& subcommand, const std::string& url,
                            const std::string& extra) {
  std::vector<std::string> argv{cli, "schema", subcommand, "--store", url};
  if (!extra.empty()) argv.push_back(extra);
  return RunProcess(argv);
}

}  // namespace idem::testing
