// The record statements' cached plans on a fresh idem_records (never
// analyzed, as after CREATE or in a new deployment): each key must be found
// through the whole primary key, never by scanning the group's records.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <string>
#include <vector>

#include "postgres/pg_test_support.h"
#include "store/postgres/pg_record_statements.h"

namespace idem::testing {
namespace {

class PgPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (PostgresTestUrl().empty()) GTEST_SKIP() << kNoPostgres;
    const std::string url = FreshSchemaUrl();
    ASSERT_FALSE(url.empty());
    ASSERT_NE(OpenPgStoreOrFail(url), nullptr);  // creates the tables
    conn_ = PQconnectdb(url.c_str());
    ASSERT_EQ(PQstatus(conn_), CONNECTION_OK) << PQerrorMessage(conn_);
    // A few hundred records, as after the first batches, and no ANALYZE.
    Exec("INSERT INTO idem_records (consumer_group, key, status, fingerprint, message_id, attempts, "
         "lease_until_ms, first_seen_ms, last_seen_ms) SELECT 'g', 'pay:' || i, 'SUCCEEDED', repeat('f', 64), "
         "'m' || i, 1, 0, 1, 1 FROM generate_series(1, 300) AS i");
    // The plan the statement cache keeps after its fifth run.
    Exec("SET plan_cache_mode = force_generic_plan");
  }
  void TearDown() override {
    if (conn_) PQfinish(conn_);
  }

  void Exec(const std::string& sql) {
    PGresult* res = PQexec(conn_, sql.c_str());
    EXPECT_EQ(PQresultStatus(res), PGRES_COMMAND_OK) << sql << ": " << PQresultErrorMessage(res);
    PQclear(res);
  }

  // The lines of EXPLAIN EXECUTE of `sql` prepared as `name`, run with `args`.
  std::vector<std::string> GenericPlan(const std::string& name, const char* sql, const std::string& args) {
    PGresult* prep = PQprepare(conn_, name.c_str(), sql, 0, nullptr);
    EXPECT_EQ(PQresultStatus(prep), PGRES_COMMAND_OK) << PQresultErrorMessage(prep);
    PQclear(prep);
    std::vector<std::string> lines;
    PGresult* res = PQexec(conn_, ("EXPLAIN EXECUTE " + name + "(" + args + ")").c_str());
    EXPECT_EQ(PQresultStatus(res), PGRES_TUPLES_OK) << PQresultErrorMessage(res);
    for (int i = 0; i < PQntuples(res); ++i) lines.emplace_back(PQgetvalue(res, i, 0));
    PQclear(res);
    return lines;
  }

  // Every read of idem_records goes through the whole primary key (or a ctid it gave).
  static void ExpectKeyLookups(const std::vector<std::string>& plan) {
    std::string text;
    for (const std::string& l : plan) text += l + "\n";
    int lookups = 0;
    for (const std::string& l : plan) {
      EXPECT_EQ(l.find("Seq Scan on idem_records"), std::string::npos) << text;
      EXPECT_EQ(l.find("Filter: (key"), std::string::npos) << "the key is a filter, not an index condition:\n" << text;
      if (l.find("Index Cond:") != std::string::npos && l.find("consumer_group") != std::string::npos) {
        EXPECT_NE(l.find("key ="), std::string::npos) << "an index scan of the whole group:\n" << text;
        lookups++;
      }
    }
    EXPECT_GE(lookups, 1) << text;
  }

  PGconn* conn_ = nullptr;
};

TEST_F(PgPlanTest, ClaimFindsEachKeyByThePrimaryKeyOnAFreshTable) {
  ExpectKeyLookups(GenericPlan("claim", pg::kClaimSql,
                               "'g', '{pay:1,pay:2,pay:900}', '{f,f,f}', '{m1,m2,m3}', 10, 1"));
}

TEST_F(PgPlanTest, RecordWritesFindEachKeyByThePrimaryKeyOnAFreshTable) {
  ExpectKeyLookups(GenericPlan("write", pg::kWriteRecordsSql,
                               "'g', 5, '{pay:1,pay:2,pay:3}', '{f,f,t}', '{SUCCEEDED,FAILED,\"\"}', "
                               "'{\"\",boom,\"\"}', '{ok,\"\",\"\"}', '{\"\",m9,\"\"}'"));
}

}  // namespace
}  // namespace idem::testing
