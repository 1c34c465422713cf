#include "postgres/pg_pipeline_store.h"

#include "postgres/pg_test_support.h"

namespace idem::testing {
namespace {

// The first batch's COMMIT loses its session inside a deferred trigger,
// before the commit record is written, so the COMMIT does not land.
std::function<void()> LoseConnectionDuringCommit(const std::string&, Store& consumer, Pipeline& p) {
  LoseTheFirstCommitIntoEffects(consumer);
  p.RunOnce();
  return [&consumer] {
    EXPECT_EQ(QueryInt(consumer, "SELECT last_value FROM lose_commit_once"), 3) << "one killed COMMIT, then two rows";
  };
}

constexpr const char* kServerStartSql =
    "SELECT (EXTRACT(EPOCH FROM pg_postmaster_start_time()) * 1000000)::BIGINT";

}  // namespace

PipelineStore PostgresPipelineStore() {
  PipelineStore s;
  s.name = "postgres";
  s.fresh_database = &FreshSchemaUrlOrSkip;
  s.open = [](const std::string& url) { return OpenPgStoreOrFail(url); };
  s.lose_connection_during_commit = &LoseConnectionDuringCommit;
  s.server_script = std::string(IDEM_SOURCE_DIR) + "/scripts/servers/postgres.sh";
  s.test_url = &PostgresTestUrl;
  s.watch_restart = [](const std::string&, Store& store) -> std::function<bool()> {
    const int64_t start = QueryInt(store, kServerStartSql);
    return [&store, start] { return QueryInt(store, kServerStartSql) != start; };
  };
  return s;
}

}  // namespace idem::testing
