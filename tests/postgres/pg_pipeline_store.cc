#include "postgres/pg_pipeline_store.h"

#include "postgres/pg_test_support.h"

namespace idem::testing {
namespace {

// A deferred trigger kills the session while COMMIT runs, on the first batch
// only: a real lost connection during COMMIT. The session dies inside the
// trigger, before the commit record is written, so the COMMIT does not land.
std::function<void()> LoseConnectionDuringCommit(const std::string&, Store& consumer, Pipeline& p) {
  Status s = consumer.ExecScript(R"sql(
    CREATE SEQUENCE lose_commit_once;
    CREATE FUNCTION lose_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF nextval('lose_commit_once') = 1 THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER lose_commit AFTER INSERT ON effects DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION lose_commit();
  )sql");
  EXPECT_TRUE(s.ok()) << s.ToString();
  p.RunOnce();
  return [&consumer] {
    EXPECT_EQ(QueryInt(consumer, "SELECT last_value FROM lose_commit_once"), 3) << "one killed COMMIT, then two rows";
  };
}

void SkipWithoutPostgres() { GTEST_SKIP() << kNoPostgres; }

constexpr const char* kServerStartSql =
    "SELECT (EXTRACT(EPOCH FROM pg_postmaster_start_time()) * 1000000)::BIGINT";

}  // namespace

PipelineStore PostgresPipelineStore() {
  PipelineStore s;
  s.name = "postgres";
  s.fresh_database = []() -> std::string {
    if (!PostgresTestUrl().empty()) return FreshSchemaUrl();
    SkipWithoutPostgres();
    return "";
  };
  s.open = [](const std::string& url) { return OpenPgStoreOrFail(url); };
  s.create_effect_tables = [](Store& store) { CreateEffectTables(store); };
  s.pay_handler = [] { return PayHandler(); };
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
